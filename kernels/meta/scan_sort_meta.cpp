// Meta functions of the scans and selections (schemas/scan_sort.yaml).
#include "NativeFunctions.h"
#include "core/wrap_dim.h"

namespace tg {

// Integral and bool inputs sum in int64 unless a dtype is given, as sum does.
TensorMeta meta::cumsum_out(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  maybe_wrap_dim(dim, self.dim(), "cumsum");
  const ScalarType self_dtype = self.scalar_type();
  const ScalarType default_dtype = is_integral_type(self_dtype, /*include_bool=*/true) ? kLong : self_dtype;
  return TensorMeta{self.sizes(), dtype.value_or(default_dtype)};
}

// (values, indices): self's shape with k along dim, in self's dtype and int64.
std::array<TensorMeta, 2> meta::topk_values(const Tensor& self, int64_t k, int64_t dim, bool /*largest*/,
                                            bool /*sorted*/) {
  dim = maybe_wrap_dim(dim, self.dim(), "topk");
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  TG_CHECK_INDEX(k >= 0 && k <= size, "[topk] selected index k out of range: k = ", k, " for dimension ", dim,
                 " of size ", size);
  DimVector sizes(self.sizes());
  if (self.dim() > 0) sizes[static_cast<size_t>(dim)] = k;
  return {TensorMeta{sizes, self.scalar_type()}, TensorMeta{sizes, kLong}};
}

}  // namespace tg

namespace tg {

// (values, indices): self's shape, in self's dtype and int64.
std::array<TensorMeta, 2> meta::sort_values_stable(const Tensor& self, std::optional<bool> /*stable*/, int64_t dim,
                                                   bool /*descending*/) {
  maybe_wrap_dim(dim, self.dim(), "sort");
  return {TensorMeta{self.sizes(), self.scalar_type()}, TensorMeta{self.sizes(), kLong}};
}

}  // namespace tg
