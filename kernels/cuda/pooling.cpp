// The native:: CUDA kernels of 2-d pooling (schemas/pooling.yaml) and of im2col and col2im
// (schemas/convolution.yaml, which make conv2d run on CUDA through matmul). Shapes and checks
// are the CPU kernels' (pooling_shape.h, nn_rules.h, index_rules.h).
#include "NativeFunctions.h"
#include "cuda/elementwise_host.h"
#include "cuda/index_check.h"
#include "cuda/nn_ops.h"
#include "cuda/pooling_ops.h"
#include "index_rules.h"
#include "nn_rules.h"
#include "tensorgen/ops.h"

namespace tg {

namespace {

cuda::AvgPoolDivisor avg_divisor(bool count_include_pad, std::optional<int64_t> divisor_override) {
  return {count_include_pad, divisor_override.has_value(), divisor_override.value_or(0)};
}

}  // namespace

void native::max_pool2d_with_indices_out_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                              IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                              const Tensor& out, const Tensor& indices) {
  const Pool2dShape s = pool2d_shape("max_pool2d", self.sizes(), kernel_size, stride, padding, dilation, ceil_mode, true);
  const Tensor input = cuda::contiguous_as(self, self.scalar_type());
  cuda::launch_max_pool2d(self.scalar_type(), input.data_ptr(), out.data_ptr(), indices.data_ptr<int64_t>(), s);
}

void native::max_pool2d_with_indices_backward_out_cuda(const Tensor& grad_output, const Tensor& self,
                                                       IntArrayRef kernel_size, IntArrayRef stride,
                                                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                                       const Tensor& indices, const Tensor& grad_input) {
  const Pool2dShape s =
      pool2d_shape("max_pool2d_backward", self.sizes(), kernel_size, stride, padding, dilation, ceil_mode, true);
  const ScalarType dtype = grad_input.scalar_type();
  // The indices' values are checked by the kernel (Note [Index checks on the device]).
  cuda::check_index_errors();
  const Tensor index = cuda::int64_on(indices, grad_input.device());
  Tensor sums = make_empty_tensor(grad_input.sizes(), cuda::acc_dtype(dtype), grad_input.device());
  sums.fill_(0);
  const Tensor grad = cuda::contiguous_as(grad_output, dtype);
  cuda::launch_max_pool2d_backward(dtype, grad.data_ptr(), index.data_ptr<int64_t>(), sums.data_ptr(), s);
  cuda::check_index_errors();
  grad_input.copy_(sums);
}

void native::avg_pool2d_out_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                 bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                                 const Tensor& out) {
  const Pool2dShape s = pool2d_shape("avg_pool2d", self.sizes(), kernel_size, stride, padding, {1}, ceil_mode, false);
  const Tensor input = cuda::contiguous_as(self, self.scalar_type());
  cuda::launch_avg_pool2d(self.scalar_type(), input.data_ptr(), out.data_ptr(), s,
                          avg_divisor(count_include_pad, divisor_override));
}

void native::avg_pool2d_backward_out_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                          IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                                          bool count_include_pad, std::optional<int64_t> divisor_override,
                                          const Tensor& grad_input) {
  const Pool2dShape s =
      pool2d_shape("avg_pool2d_backward", self.sizes(), kernel_size, stride, padding, {1}, ceil_mode, false);
  const Tensor grad = cuda::contiguous_as(grad_output, grad_input.scalar_type());
  cuda::launch_avg_pool2d_backward(grad_input.scalar_type(), grad.data_ptr(), grad_input.data_ptr(), s,
                                   avg_divisor(count_include_pad, divisor_override));
}

Tensor native::im2col_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                           IntArrayRef stride) {
  const Im2colCall call = check_im2col(self, kernel_size, dilation, padding, stride);
  Tensor out = make_empty_tensor(call.out_sizes, self.scalar_type(), self.device());
  const Tensor input = cuda::contiguous_as(self, self.scalar_type());
  cuda::launch_im2col(self.scalar_type(), input.data_ptr(), out.data_ptr(), call.shape, call.batch, call.channels);
  return out;
}

Tensor native::col2im_cuda(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
                           IntArrayRef padding, IntArrayRef stride) {
  const Im2colCall call = check_col2im(self, output_size, kernel_size, dilation, padding, stride);
  Tensor out = make_empty_tensor(call.out_sizes, self.scalar_type(), self.device());
  const Tensor input = cuda::contiguous_as(self, self.scalar_type());
  cuda::launch_col2im(self.scalar_type(), input.data_ptr(), out.data_ptr(), call.shape, call.batch, call.channels);
  return out;
}

}  // namespace tg
