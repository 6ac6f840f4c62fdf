// Meta functions of the indexing family (schemas/indexing.yaml).
#include <algorithm>

#include "NativeFunctions.h"
#include "core/wrap_dim.h"

namespace tg {

// index_add: self's shape and dtype; source has self's shape except index.numel() along dim.
TensorMeta meta::index_add_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                               const Scalar& /*alpha*/) {
  dim = maybe_wrap_dim(dim, self.dim(), "index_add");
  TG_CHECK_TYPE(index.scalar_type() == kLong || index.scalar_type() == kInt, "[index_add] expected index of dtype ",
                "int64 or int32, got ", index.scalar_type());
  TG_CHECK_VALUE(index.dim() <= 1, "[index_add] index must be a vector or a scalar, got a tensor of shape ",
                 index.sizes());
  TG_CHECK_TYPE(source.scalar_type() == self.scalar_type(), "[index_add] self (", self.scalar_type(),
                ") and source (", source.scalar_type(), ") must have the same scalar type");
  const int64_t along = source.dim() == 0 ? 1 : source.size(dim < source.dim() ? dim : 0);
  TG_CHECK_VALUE(source.dim() == self.dim() || (source.dim() == 0 && self.dim() <= 1) ||
                     (self.dim() == 0 && source.dim() <= 1),
                 "[index_add] source (shape ", source.sizes(), ") must have as many dims as self (shape ",
                 self.sizes(), ")");
  TG_CHECK_VALUE(index.numel() == along, "[index_add] number of indices (", index.numel(),
                 ") should be equal to source.size(dim) (", along, ")");
  for (int64_t d = 0; d < self.dim() && source.dim() == self.dim(); ++d) {
    TG_CHECK_VALUE(d == dim || source.size(d) == self.size(d), "[index_add] source shape ", source.sizes(),
                   " must match self shape ", self.sizes(), " outside dim ", dim);
  }
  return TensorMeta{self.sizes(), self.scalar_type()};
}

namespace {

// gather and scatter_add: index (int64) has self's number of dims (0 and 1 count as one) and
// is no larger than self outside dim, nor than src (scatter_add) along any dim.
void check_gather_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  TG_CHECK_TYPE(index.scalar_type() == kLong, "[", op, "] expected index of dtype int64, got ", index.scalar_type());
  const int64_t ndim = std::max<int64_t>(self.dim(), 1);
  TG_CHECK_VALUE(std::max<int64_t>(index.dim(), 1) == ndim, "[", op, "] index tensor must have the same number of ",
                 "dimensions as input tensor, got index of shape ", index.sizes(), " and input of shape ",
                 self.sizes());
  auto size_of = [](const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); };
  for (int64_t d = 0; d < ndim; ++d) {
    TG_CHECK_VALUE(d == dim || size_of(index, d) <= size_of(self, d), "[", op, "] size does not match at dimension ",
                   d, ": expected index ", index.sizes(), " to be no larger than self ", self.sizes(),
                   " apart from dimension ", dim);
    if (src != nullptr) {
      TG_CHECK_VALUE(src->dim() == index.dim() || (src->dim() <= 1 && index.dim() <= 1), "[", op, "] index ",
                     index.sizes(), " and src ", src->sizes(), " must have the same number of dimensions");
      TG_CHECK_VALUE(size_of(index, d) <= size_of(*src, d), "[", op, "] expected index ", index.sizes(),
                     " to be no larger than src ", src->sizes(), " at dimension ", d);
    }
  }
}

}  // namespace

TensorMeta meta::gather_out(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/) {
  dim = maybe_wrap_dim(dim, self.dim(), "gather");
  check_gather_scatter("gather", self, dim, index, nullptr);
  return TensorMeta{index.sizes(), self.scalar_type()};
}

TensorMeta meta::scatter_add_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  dim = maybe_wrap_dim(dim, self.dim(), "scatter_add");
  TG_CHECK_TYPE(src.scalar_type() == self.scalar_type(), "[scatter_add] expected self.dtype to be equal to ",
                "src.dtype, got ", self.scalar_type(), " and ", src.scalar_type());
  check_gather_scatter("scatter_add", self, dim, index, &src);
  return TensorMeta{self.sizes(), self.scalar_type()};
}

}  // namespace tg
