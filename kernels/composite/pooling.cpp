// The composite pooling operators, as ATen defines them: max_pool2d/3d as the values of the
// _with_indices forms (whose derivative uses the indices), the 1-d adaptive pools as the 2-d ones
// over a height of 1, and adaptive_avg_pool2d/3d as their underscored kernels.
#include "NativeFunctions.h"
#include "tensorgen/ops.h"

namespace tg::native {

namespace {

void check_1d_input(const char* op, const Tensor& self, IntArrayRef output_size) {
  TG_CHECK_VALUE(self.dim() == 2 || self.dim() == 3, "[", op, "] expected a 2-d [C, L] or 3-d [N, C, L] input, got ",
                 "shape ", self.sizes());
  TG_CHECK_VALUE(output_size.size() == 1, "[", op, "] output_size must be one int, got ", output_size);
}

}  // namespace

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(tg::max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(tg::max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size) {
  check_1d_input("adaptive_max_pool1d", self, output_size);
  auto [values, indices] = tg::adaptive_max_pool2d(self.unsqueeze(-2), {1, output_size[0]});
  return {values.squeeze(-2), indices.squeeze(-2)};
}

Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  check_1d_input("adaptive_avg_pool1d", self, output_size);
  return tg::_adaptive_avg_pool2d(self.unsqueeze(-2), {1, output_size[0]}).squeeze(-2);
}

Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  return tg::_adaptive_avg_pool2d(self, output_size);
}

Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  return tg::_adaptive_avg_pool3d(self, output_size);
}

}  // namespace tg::native
