// Meta functions of the indexing family (schemas/indexing.yaml).
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

}  // namespace tg
