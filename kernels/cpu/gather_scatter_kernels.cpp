// CPU kernels of gather and scatter_add. Both walk index's shape; at position p (a multi-index)
// the element of self at p with p[dim] replaced by index[p] is read (gather) or added to
// (scatter_add). Tensors are addressed through their strides, so nothing is copied to make
// them contiguous; a 0-dim tensor counts as one of shape [1].
#include <algorithm>
#include <vector>

#include "NativeFunctions.h"
#include "core/wrap_dim.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "dtype_dispatch.h"
#include "index_rules.h"
#include "scalar_math.h"

namespace tg {

namespace {

// Calls f(offset in `a` of p with p[dim] replaced by index[p], offset in `b` of p) for every
// position p of index in row-major order, after checking every index[p] against a's size
// along dim.
// Offsets are in elements, through the strides given (none: offset 0).
template <typename F>
void for_each_indexed(const char* op, const Tensor& index, int64_t dim, IntArrayRef a_sizes, IntArrayRef a_strides,
                      IntArrayRef b_strides, const F& f) {
  const int64_t ndim = std::max<int64_t>(index.dim(), 1);
  const std::vector<int64_t> shape = index.dim() == 0 ? std::vector<int64_t>{1} : index.sizes().vec();
  auto stride_of = [&](IntArrayRef strides, int64_t d) { return strides.empty() ? 0 : strides[d]; };
  const int64_t bound = a_sizes.empty() ? 1 : a_sizes[dim];
  const Tensor index_t = check_gather_index(op, index, dim, bound);
  const int64_t* idx = index_t.data_ptr<int64_t>();
  std::vector<int64_t> position(static_cast<size_t>(ndim), 0);
  const int64_t n = index_t.numel();
  for (int64_t linear = 0; linear < n; ++linear) {
    const int64_t k = idx[linear];
    int64_t a_offset = 0, b_offset = 0;
    for (int64_t d = 0; d < ndim; ++d) {
      a_offset += (d == dim ? k : position[d]) * stride_of(a_strides, d);
      b_offset += position[d] * stride_of(b_strides, d);
    }
    f(a_offset, b_offset);
    for (int64_t d = ndim - 1; d >= 0; --d) {
      if (++position[d] < shape[d]) break;
      position[d] = 0;
    }
  }
}

}  // namespace

void native::gather_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/,
                            const Tensor& out) {
  dim = maybe_wrap_dim(dim, self.dim(), "gather");
  TG_DISPATCH_ALL_TYPES(out.scalar_type(), "gather", [&] {
    const scalar_t* src = static_cast<const scalar_t*>(self.data_ptr());
    scalar_t* dst = out.data_ptr<scalar_t>();  // contiguous, of index's shape
    int64_t written = 0;
    for_each_indexed("gather", index, dim, self.sizes(), self.strides(), {},
                     [&](int64_t self_offset, int64_t) { dst[written++] = src[self_offset]; });
  });
}

void native::scatter_add_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                 const Tensor& out) {
  dim = maybe_wrap_dim(dim, self.dim(), "scatter_add");
  if (!out.is_same(self)) cpu::copy_into(out, self);
  TG_DISPATCH_ALL_TYPES(out.scalar_type(), "scatter_add", [&] {
    using T = opmath_t<scalar_t>;
    const scalar_t* from = static_cast<const scalar_t*>(src.data_ptr());
    scalar_t* dst = out.data_ptr<scalar_t>();
    for_each_indexed("scatter_add", index, dim, out.sizes(), out.strides(), src.strides(),
                     [&](int64_t out_offset, int64_t src_offset) {
                       const T sum = math::add(cpu::convert<T>(dst[out_offset]),
                                                    cpu::convert<T>(from[src_offset]));
                       dst[out_offset] = cpu::convert<scalar_t>(sum);
                     });
  });
}

}  // namespace tg
