// Meta functions of 2-d pooling (schemas/pooling.yaml); the geometry is pooling_shape.h's.
#include "NativeFunctions.h"
#include "pooling_shape.h"

namespace tg {

namespace {

DimVector pooled_sizes(IntArrayRef input_sizes, const Pool2dShape& s) {
  DimVector sizes(input_sizes);
  sizes[sizes.size() - 2] = s.out_height;
  sizes[sizes.size() - 1] = s.out_width;
  return sizes;
}

void check_avg_pool_divisor(std::optional<int64_t> divisor_override) {
  TG_CHECK_VALUE(!divisor_override || *divisor_override != 0, "[avg_pool2d] divisor must be not zero");
}

void check_grad_output(const char* op, const Tensor& grad_output, IntArrayRef expected) {
  TG_CHECK_VALUE(grad_output.sizes() == expected, "[", op, "] expected grad_output of shape ", expected, ", got ",
                 grad_output.sizes());
}

}  // namespace

std::array<TensorMeta, 2> meta::max_pool2d_with_indices_out(const Tensor& self, IntArrayRef kernel_size,
                                                            IntArrayRef stride, IntArrayRef padding,
                                                            IntArrayRef dilation, bool ceil_mode) {
  const Pool2dShape s = pool2d_shape("max_pool2d", self.sizes(), kernel_size, stride, padding, dilation, ceil_mode,
                                     /*padding_from_dilation=*/true);
  const DimVector sizes = pooled_sizes(self.sizes(), s);
  return {TensorMeta{sizes, self.scalar_type()}, TensorMeta{sizes, kLong}};
}

TensorMeta meta::max_pool2d_with_indices_backward_grad_input(const Tensor& grad_output, const Tensor& self,
                                                             IntArrayRef kernel_size, IntArrayRef stride,
                                                             IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                                             const Tensor& indices) {
  const Pool2dShape s = pool2d_shape("max_pool2d_backward", self.sizes(), kernel_size, stride, padding, dilation,
                                     ceil_mode, /*padding_from_dilation=*/true);
  const DimVector sizes = pooled_sizes(self.sizes(), s);
  check_grad_output("max_pool2d_backward", grad_output, sizes);
  TG_CHECK_VALUE(indices.sizes() == IntArrayRef(sizes), "[max_pool2d_backward] expected indices of shape ",
                 IntArrayRef(sizes), ", got ", indices.sizes());
  TG_CHECK_TYPE(indices.scalar_type() == kLong, "[max_pool2d_backward] expected indices of dtype int64, got ",
                indices.scalar_type());
  return TensorMeta{self.sizes(), grad_output.scalar_type()};
}

TensorMeta meta::avg_pool2d_out(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                bool ceil_mode, bool /*count_include_pad*/, std::optional<int64_t> divisor_override) {
  check_avg_pool_divisor(divisor_override);
  const Pool2dShape s = pool2d_shape("avg_pool2d", self.sizes(), kernel_size, stride, padding, {1}, ceil_mode,
                                     /*padding_from_dilation=*/false);
  return TensorMeta{pooled_sizes(self.sizes(), s), self.scalar_type()};
}

TensorMeta meta::avg_pool2d_backward_grad_input(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                                IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                                                bool /*count_include_pad*/, std::optional<int64_t> divisor_override) {
  check_avg_pool_divisor(divisor_override);
  const Pool2dShape s = pool2d_shape("avg_pool2d_backward", self.sizes(), kernel_size, stride, padding, {1},
                                     ceil_mode, /*padding_from_dilation=*/false);
  check_grad_output("avg_pool2d_backward", grad_output, pooled_sizes(self.sizes(), s));
  return TensorMeta{self.sizes(), grad_output.scalar_type()};
}

}  // namespace tg
