// Meta functions of pooling (schemas/pooling.yaml); the geometry is pooling_shape.h's.
#include "NativeFunctions.h"
#include "pooling_shape.h"

namespace tg {

namespace {

void check_avg_pool_divisor(const char* op, std::optional<int64_t> divisor_override) {
  TG_CHECK_VALUE(!divisor_override || *divisor_override != 0, "[", op, "] divisor must be not zero");
}

void check_grad_output(const char* op, const Tensor& grad_output, IntArrayRef expected) {
  TG_CHECK_VALUE(grad_output.sizes() == expected, "[", op, "] expected grad_output of shape ", expected, ", got ",
                 grad_output.sizes());
}

void check_indices(const char* op, const Tensor& indices, IntArrayRef expected) {
  TG_CHECK_VALUE(indices.sizes() == expected, "[", op, "] expected indices of shape ", expected, ", got ",
                 indices.sizes());
  TG_CHECK_TYPE(indices.scalar_type() == kLong, "[", op, "] expected indices of dtype int64, got ",
                indices.scalar_type());
}

// A max pooling's values and int64 indices.
std::array<TensorMeta, 2> values_and_indices(const Tensor& self, const PoolShape& s, size_t spatial_dims) {
  const DimVector sizes = pooled_sizes(self.sizes(), s, spatial_dims);
  return {TensorMeta{sizes, self.scalar_type()}, TensorMeta{sizes, kLong}};
}

// A max pooling's backward, given its forward's shape.
TensorMeta max_pool_backward(const char* op, const Tensor& grad_output, const Tensor& self, const Tensor& indices,
                             const PoolShape& s, size_t spatial_dims) {
  const DimVector sizes = pooled_sizes(self.sizes(), s, spatial_dims);
  check_grad_output(op, grad_output, sizes);
  check_indices(op, indices, sizes);
  return TensorMeta{self.sizes(), grad_output.scalar_type()};
}

// An adaptive pooling's backward: grad_output of the input's rank, its last dims the output size.
template <size_t N>
TensorMeta adaptive_backward(const char* op, const Tensor& grad_output, const Tensor& self, const Tensor* indices) {
  TG_CHECK_VALUE(grad_output.dim() == self.dim(), "[", op, "] expected grad_output of ", self.dim(),
                 " dims (self's), got shape ", grad_output.sizes());
  const PoolShape s = adaptive_backward_shape<N>(op, self.sizes(), grad_output.sizes());
  const DimVector sizes = pooled_sizes(self.sizes(), s, N);
  check_grad_output(op, grad_output, sizes);
  if (indices != nullptr) check_indices(op, *indices, sizes);
  return TensorMeta{self.sizes(), grad_output.scalar_type()};
}

}  // namespace

std::array<TensorMeta, 2> meta::max_pool2d_with_indices_out(const Tensor& self, IntArrayRef kernel_size,
                                                            IntArrayRef stride, IntArrayRef padding,
                                                            IntArrayRef dilation, bool ceil_mode) {
  return values_and_indices(
      self, max_pool_shape<2>("max_pool2d", self.sizes(), kernel_size, stride, padding, dilation, ceil_mode), 2);
}

std::array<TensorMeta, 2> meta::max_pool3d_with_indices_out(const Tensor& self, IntArrayRef kernel_size,
                                                            IntArrayRef stride, IntArrayRef padding,
                                                            IntArrayRef dilation, bool ceil_mode) {
  return values_and_indices(
      self, max_pool_shape<3>("max_pool3d", self.sizes(), kernel_size, stride, padding, dilation, ceil_mode), 3);
}

std::array<TensorMeta, 2> meta::adaptive_max_pool2d_out(const Tensor& self, IntArrayRef output_size) {
  return values_and_indices(self, adaptive_pool_shape<2>("adaptive_max_pool2d", self.sizes(), output_size), 2);
}

std::array<TensorMeta, 2> meta::adaptive_max_pool3d_out(const Tensor& self, IntArrayRef output_size) {
  return values_and_indices(self, adaptive_pool_shape<3>("adaptive_max_pool3d", self.sizes(), output_size), 3);
}

TensorMeta meta::max_pool2d_with_indices_backward_grad_input(const Tensor& grad_output, const Tensor& self,
                                                             IntArrayRef kernel_size, IntArrayRef stride,
                                                             IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                                             const Tensor& indices) {
  const char* op = "max_pool2d_backward";
  return max_pool_backward(op, grad_output, self, indices,
                           max_pool_shape<2>(op, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode), 2);
}

TensorMeta meta::max_pool3d_with_indices_backward_grad_input(const Tensor& grad_output, const Tensor& self,
                                                             IntArrayRef kernel_size, IntArrayRef stride,
                                                             IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                                             const Tensor& indices) {
  const char* op = "max_pool3d_backward";
  return max_pool_backward(op, grad_output, self, indices,
                           max_pool_shape<3>(op, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode), 3);
}

TensorMeta meta::adaptive_max_pool2d_backward_grad_input(const Tensor& grad_output, const Tensor& self,
                                                         const Tensor& indices) {
  return adaptive_backward<2>("adaptive_max_pool2d_backward", grad_output, self, &indices);
}

TensorMeta meta::adaptive_max_pool3d_backward_grad_input(const Tensor& grad_output, const Tensor& self,
                                                         const Tensor& indices) {
  return adaptive_backward<3>("adaptive_max_pool3d_backward", grad_output, self, &indices);
}

TensorMeta meta::avg_pool2d_out(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                bool ceil_mode, bool /*count_include_pad*/, std::optional<int64_t> divisor_override) {
  check_avg_pool_divisor("avg_pool2d", divisor_override);
  const PoolShape s = avg_pool_shape<2>("avg_pool2d", self.sizes(), kernel_size, stride, padding, ceil_mode);
  return TensorMeta{pooled_sizes(self.sizes(), s, 2), self.scalar_type()};
}

TensorMeta meta::avg_pool3d_out(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                bool ceil_mode, bool /*count_include_pad*/, std::optional<int64_t> divisor_override) {
  check_avg_pool_divisor("avg_pool3d", divisor_override);
  const PoolShape s = avg_pool_shape<3>("avg_pool3d", self.sizes(), kernel_size, stride, padding, ceil_mode);
  return TensorMeta{pooled_sizes(self.sizes(), s, 3), self.scalar_type()};
}

TensorMeta meta::_adaptive_avg_pool2d_out(const Tensor& self, IntArrayRef output_size) {
  const PoolShape s = adaptive_pool_shape<2>("adaptive_avg_pool2d", self.sizes(), output_size);
  return TensorMeta{pooled_sizes(self.sizes(), s, 2), self.scalar_type()};
}

TensorMeta meta::_adaptive_avg_pool3d_out(const Tensor& self, IntArrayRef output_size) {
  const PoolShape s = adaptive_pool_shape<3>("adaptive_avg_pool3d", self.sizes(), output_size);
  return TensorMeta{pooled_sizes(self.sizes(), s, 3), self.scalar_type()};
}

TensorMeta meta::avg_pool2d_backward_grad_input(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                                IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                                                bool /*count_include_pad*/, std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d_backward";
  check_avg_pool_divisor(op, divisor_override);
  const PoolShape s = avg_pool_shape<2>(op, self.sizes(), kernel_size, stride, padding, ceil_mode);
  check_grad_output(op, grad_output, pooled_sizes(self.sizes(), s, 2));
  return TensorMeta{self.sizes(), grad_output.scalar_type()};
}

TensorMeta meta::avg_pool3d_backward_grad_input(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                                IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                                                bool /*count_include_pad*/, std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool3d_backward";
  check_avg_pool_divisor(op, divisor_override);
  const PoolShape s = avg_pool_shape<3>(op, self.sizes(), kernel_size, stride, padding, ceil_mode);
  check_grad_output(op, grad_output, pooled_sizes(self.sizes(), s, 3));
  return TensorMeta{self.sizes(), grad_output.scalar_type()};
}

TensorMeta meta::_adaptive_avg_pool2d_backward_grad_input(const Tensor& grad_output, const Tensor& self) {
  return adaptive_backward<2>("adaptive_avg_pool2d_backward", grad_output, self, nullptr);
}

TensorMeta meta::_adaptive_avg_pool3d_backward_grad_input(const Tensor& grad_output, const Tensor& self) {
  return adaptive_backward<3>("adaptive_avg_pool3d_backward", grad_output, self, nullptr);
}

}  // namespace tg
