#include "shape_utils.h"

#include <algorithm>

#include "core/error.h"
#include "core/wrap_dim.h"

namespace tg {

DimVector infer_broadcast_size(IntArrayRef a, IntArrayRef b, std::string_view op) {
  if (a == b) return DimVector(a);  // the common case, a tenth of the general loop's instructions
  const size_t ndim = std::max(a.size(), b.size());
  DimVector result(ndim);
  for (size_t offset = 0; offset < ndim; ++offset) {
    const size_t i = ndim - 1 - offset;  // dim of the result, counted from the left
    const int64_t size_a = offset < a.size() ? a[a.size() - 1 - offset] : 1;
    const int64_t size_b = offset < b.size() ? b[b.size() - 1 - offset] : 1;
    TG_CHECK_VALUE(size_a == size_b || size_a == 1 || size_b == 1, "[", op, "] the size of tensor a (", size_a,
                   ") must match the size of tensor b (", size_b, ") at non-singleton dimension ", i);
    result[i] = size_a == 1 ? size_b : size_a;
  }
  return result;
}

DimVector expand_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef target, std::string_view op) {
  TG_CHECK_VALUE(sizes.size() <= target.size(), "[", op, "] a tensor of shape ", sizes,
                 " cannot be broadcast to the shape ", target, " with fewer dims");
  DimVector result(target.size(), 0);
  const size_t lead = target.size() - sizes.size();
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t size = sizes[i];
    const int64_t want = target[lead + i];
    if (size == want) {
      result[lead + i] = size == 1 ? 0 : strides[i];
    } else {
      TG_CHECK_VALUE(size == 1, "[", op, "] the expanded size of the tensor (", want,
                     ") must match the existing size (", size, ") at non-singleton dimension ", lead + i,
                     ". Target sizes: ", target, ". Tensor sizes: ", sizes);
    }
  }
  return result;
}

DimMask make_dim_mask(OptionalIntArrayRef dims, int64_t ndim, const char* op) {
  TG_CHECK_VALUE(ndim <= kMaxReductionDims, "[", op, "] reductions support tensors of at most ", kMaxReductionDims,
                 " dims, got ", ndim);
  DimMask mask;
  if (!dims.has_value() || dims->empty()) {
    for (int64_t d = 0; d < ndim; ++d) mask.set(static_cast<size_t>(d));
    return mask;
  }
  for (int64_t dim : *dims) {
    const int64_t wrapped = maybe_wrap_dim(dim, ndim, op);
    TG_CHECK_VALUE(!mask.test(static_cast<size_t>(wrapped)), "[", op, "] dim ", wrapped,
                   " appears multiple times in the list of dims ", *dims);
    mask.set(static_cast<size_t>(wrapped));
  }
  // A zero-dim tensor has no dim to remove: dims 0 and -1 name the tensor itself.
  if (ndim == 0) mask.reset();
  return mask;
}

DimVector reduced_shape(IntArrayRef sizes, const DimMask& mask, bool keepdim) {
  DimVector result;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!mask.test(d)) {
      result.push_back(sizes[d]);
    } else if (keepdim) {
      result.push_back(1);
    }
  }
  return result;
}

int64_t reduced_numel(IntArrayRef sizes, const DimMask& mask) {
  int64_t n = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (mask.test(d)) n *= sizes[d];
  }
  return n;
}

}  // namespace tg
