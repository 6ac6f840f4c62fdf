// sort, argsort, kthvalue and median (schemas/sorting.yaml) over sort.stable, gather and
// where: gradients flow through sort's formula and gather's.
#include "NativeFunctions.h"
#include "core/wrap_dim.h"
#include "tensorgen/ops.h"

namespace tg::native {

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  return tg::sort(self, std::optional<bool>(false), dim, descending);
}

Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(tg::sort(self, std::optional<bool>(false), dim, descending));
}

Tensor argsort_stable(const Tensor& self, bool stable, int64_t dim, bool descending) {
  return std::get<1>(tg::sort(self, std::optional<bool>(stable), dim, descending));
}

namespace {

// Element `position` (an int64 tensor of self's shape with dim of size 1) of the ascending
// sort of self along dim, and its index.
std::tuple<Tensor, Tensor> select_sorted(const Tensor& self, int64_t dim, const Tensor& position, bool keepdim) {
  auto [values, indices] = tg::sort(self, std::optional<bool>(true), dim, false);
  Tensor v = values.gather(dim, position), i = indices.gather(dim, position);
  if (!keepdim && self.dim() > 0) {
    v = v.squeeze(dim);
    i = i.squeeze(dim);
  }
  return {v, i};
}

Tensor position_like(const Tensor& self, int64_t dim, int64_t position) {
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  if (self.dim() > 0) shape[static_cast<size_t>(dim)] = 1;
  return tg::full(shape, position, TensorOptions().dtype(kLong).device(self.device()));
}

}  // namespace

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  dim = maybe_wrap_dim(dim, self.dim(), "kthvalue");
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  TG_CHECK_INDEX(k >= 1 && k <= size, "[kthvalue] selected number k out of range for dimension ", dim,
                 ": k = ", k, ", size ", size);
  return select_sorted(self, dim, position_like(self, dim, k - 1), keepdim);
}

std::tuple<Tensor, Tensor> median_dim(const Tensor& self, int64_t dim, bool keepdim) {
  dim = maybe_wrap_dim(dim, self.dim(), "median");
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  TG_CHECK_INDEX(size > 0, "[median] median() cannot compute median for a dimension of size 0 (dim ", dim, ")");
  // NaNs sort last: a slice with c of them takes sorted position size - c, its first NaN.
  const Tensor nan_count = (self != self).sum(std::vector<int64_t>{dim}, /*keepdim=*/true, kLong);
  const Tensor lower = position_like(self, dim, (size - 1) / 2);
  const Tensor position = tg::where(nan_count > 0, size - nan_count, lower);
  return select_sorted(self, dim, position, keepdim);
}

Tensor median(const Tensor& self) {
  TG_CHECK_VALUE(self.numel() > 0, "[median] median() input tensor cannot be empty");
  return std::get<0>(median_dim(self.reshape({-1}), 0, false));
}

}  // namespace tg::native
