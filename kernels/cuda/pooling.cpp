// The native:: CUDA kernels of pooling (schemas/pooling.yaml) and of im2col and col2im
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

void max_pool(const char* op, const PoolShape& s, const Tensor& self, const Tensor& out, const Tensor& indices) {
  const Tensor input = cuda::contiguous_as(self, self.scalar_type());
  cuda::launch_max_pool(op, self.scalar_type(), input.data_ptr(), out.data_ptr(), indices.data_ptr<int64_t>(), s);
}

// indexed_op and spatial_dims name the operator in a device-side index error.
void max_pool_backward(const char* op, const PoolShape& s, cuda::IndexedOp indexed_op, int64_t spatial_dims,
                       const Tensor& grad_output, const Tensor& indices, const Tensor& grad_input) {
  const ScalarType dtype = grad_input.scalar_type();
  // The indices' values are checked by the kernel (Note [Index checks on the device]).
  cuda::check_index_errors();
  const Tensor index = cuda::int64_on(indices, grad_input.device());
  Tensor sums = make_empty_tensor(grad_input.sizes(), cuda::acc_dtype(dtype), grad_input.device());
  sums.fill_(0);
  const Tensor grad = cuda::contiguous_as(grad_output, dtype);
  cuda::launch_max_pool_backward(op, dtype, grad.data_ptr(), index.data_ptr<int64_t>(), sums.data_ptr(), s,
                                 indexed_op, spatial_dims);
  cuda::check_index_errors();
  grad_input.copy_(sums);
}

void avg_pool(const char* op, const PoolShape& s, AvgPoolDivisor divisor, const Tensor& self, const Tensor& out) {
  const Tensor input = cuda::contiguous_as(self, self.scalar_type());
  cuda::launch_avg_pool(op, self.scalar_type(), input.data_ptr(), out.data_ptr(), s, divisor);
}

void avg_pool_backward(const char* op, const PoolShape& s, AvgPoolDivisor divisor, const Tensor& grad_output,
                       const Tensor& grad_input) {
  const Tensor grad = cuda::contiguous_as(grad_output, grad_input.scalar_type());
  cuda::launch_avg_pool_backward(op, grad_input.scalar_type(), grad.data_ptr(), grad_input.data_ptr(), s, divisor);
}

}  // namespace

// The operators: each computes its PoolShape and runs a launcher.

void native::max_pool2d_with_indices_out_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                              IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                              const Tensor& out, const Tensor& indices) {
  const char* op = "max_pool2d";
  max_pool(op, max_pool_shape<2>(op, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode), self, out,
           indices);
}

void native::max_pool3d_with_indices_out_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                              IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                              const Tensor& out, const Tensor& indices) {
  const char* op = "max_pool3d";
  max_pool(op, max_pool_shape<3>(op, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode), self, out,
           indices);
}

void native::adaptive_max_pool2d_out_cuda(const Tensor& self, IntArrayRef output_size, const Tensor& out,
                                          const Tensor& indices) {
  const char* op = "adaptive_max_pool2d";
  max_pool(op, adaptive_pool_shape<2>(op, self.sizes(), output_size), self, out, indices);
}

void native::adaptive_max_pool3d_out_cuda(const Tensor& self, IntArrayRef output_size, const Tensor& out,
                                          const Tensor& indices) {
  const char* op = "adaptive_max_pool3d";
  max_pool(op, adaptive_pool_shape<3>(op, self.sizes(), output_size), self, out, indices);
}

void native::max_pool2d_with_indices_backward_out_cuda(const Tensor& grad_output, const Tensor& self,
                                                       IntArrayRef kernel_size, IntArrayRef stride,
                                                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                                       const Tensor& indices, const Tensor& grad_input) {
  const char* op = "max_pool2d_backward";
  max_pool_backward(op, max_pool_shape<2>(op, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode),
                    cuda::IndexedOp::kMaxPoolBackward, 2, grad_output, indices, grad_input);
}

void native::max_pool3d_with_indices_backward_out_cuda(const Tensor& grad_output, const Tensor& self,
                                                       IntArrayRef kernel_size, IntArrayRef stride,
                                                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                                       const Tensor& indices, const Tensor& grad_input) {
  const char* op = "max_pool3d_backward";
  max_pool_backward(op, max_pool_shape<3>(op, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode),
                    cuda::IndexedOp::kMaxPoolBackward, 3, grad_output, indices, grad_input);
}

void native::adaptive_max_pool2d_backward_out_cuda(const Tensor& grad_output, const Tensor& self,
                                                   const Tensor& indices, const Tensor& grad_input) {
  const char* op = "adaptive_max_pool2d_backward";
  max_pool_backward(op, adaptive_backward_shape<2>(op, self.sizes(), grad_output.sizes()),
                    cuda::IndexedOp::kAdaptiveMaxPoolBackward, 2, grad_output, indices, grad_input);
}

void native::adaptive_max_pool3d_backward_out_cuda(const Tensor& grad_output, const Tensor& self,
                                                   const Tensor& indices, const Tensor& grad_input) {
  const char* op = "adaptive_max_pool3d_backward";
  max_pool_backward(op, adaptive_backward_shape<3>(op, self.sizes(), grad_output.sizes()),
                    cuda::IndexedOp::kAdaptiveMaxPoolBackward, 3, grad_output, indices, grad_input);
}

void native::avg_pool2d_out_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                 bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                                 const Tensor& out) {
  const char* op = "avg_pool2d";
  avg_pool(op, avg_pool_shape<2>(op, self.sizes(), kernel_size, stride, padding, ceil_mode),
           avg_pool_divisor_options(count_include_pad, divisor_override), self, out);
}

void native::avg_pool3d_out_cuda(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                 bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                                 const Tensor& out) {
  const char* op = "avg_pool3d";
  avg_pool(op, avg_pool_shape<3>(op, self.sizes(), kernel_size, stride, padding, ceil_mode),
           avg_pool_divisor_options(count_include_pad, divisor_override), self, out);
}

void native::adaptive_avg_pool2d_out_cuda(const Tensor& self, IntArrayRef output_size, const Tensor& out) {
  const char* op = "adaptive_avg_pool2d";
  avg_pool(op, adaptive_pool_shape<2>(op, self.sizes(), output_size), kAdaptiveAvgPoolDivisor, self, out);
}

void native::adaptive_avg_pool3d_out_cuda(const Tensor& self, IntArrayRef output_size, const Tensor& out) {
  const char* op = "adaptive_avg_pool3d";
  avg_pool(op, adaptive_pool_shape<3>(op, self.sizes(), output_size), kAdaptiveAvgPoolDivisor, self, out);
}

void native::avg_pool2d_backward_out_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                          IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                                          bool count_include_pad, std::optional<int64_t> divisor_override,
                                          const Tensor& grad_input) {
  const char* op = "avg_pool2d_backward";
  avg_pool_backward(op, avg_pool_shape<2>(op, self.sizes(), kernel_size, stride, padding, ceil_mode),
                    avg_pool_divisor_options(count_include_pad, divisor_override), grad_output, grad_input);
}

void native::avg_pool3d_backward_out_cuda(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                          IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                                          bool count_include_pad, std::optional<int64_t> divisor_override,
                                          const Tensor& grad_input) {
  const char* op = "avg_pool3d_backward";
  avg_pool_backward(op, avg_pool_shape<3>(op, self.sizes(), kernel_size, stride, padding, ceil_mode),
                    avg_pool_divisor_options(count_include_pad, divisor_override), grad_output, grad_input);
}

void native::adaptive_avg_pool2d_backward_out_cuda(const Tensor& grad_output, const Tensor& self,
                                                   const Tensor& grad_input) {
  const char* op = "adaptive_avg_pool2d_backward";
  avg_pool_backward(op, adaptive_backward_shape<2>(op, self.sizes(), grad_output.sizes()), kAdaptiveAvgPoolDivisor,
                    grad_output, grad_input);
}

void native::adaptive_avg_pool3d_backward_out_cuda(const Tensor& grad_output, const Tensor& self,
                                                   const Tensor& grad_input) {
  const char* op = "adaptive_avg_pool3d_backward";
  avg_pool_backward(op, adaptive_backward_shape<3>(op, self.sizes(), grad_output.sizes()), kAdaptiveAvgPoolDivisor,
                    grad_output, grad_input);
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
