// The native:: CUDA kernels of the activations (schemas/activation.yaml): gelu, silu and
// their derivatives and threshold_backward on the elementwise path (pointwise_ops.h), softmax
// and log_softmax and their backward along one dim (dim_ops.h). Arguments and dtypes are the
// CPU kernels' (kernels/cpu/activation_kernels.cpp, softmax_kernels.cpp), checked by the
// same rules.
#include "NativeFunctions.h"
#include "core/wrap_dim.h"
#include "cuda/dim_ops.h"
#include "cuda/elementwise_host.h"
#include "cuda/pointwise_ops.h"
#include "gelu_approximation.h"
#include "nn_rules.h"

namespace tg {

namespace {

void activation_out(cuda::ActivationOp op, const char* name, const Tensor& self, const Tensor& out) {
  const ScalarType dtype = cuda::kernel_dtype(out.scalar_type(), out, {&self});
  cuda::ElementwiseLaunch launch(name, out, dtype, {{self, dtype}});
  cuda::launch_activation(op, dtype, launch.args());
  launch.finish();
}

void activation_backward_out(cuda::ActivationOp op, const char* name, const Tensor& grad_output, const Tensor& self,
                             const Tensor& grad_input) {
  const ScalarType dtype = cuda::kernel_dtype(grad_input.scalar_type(), grad_input, {&grad_output, &self});
  cuda::ElementwiseLaunch launch(name, grad_input, dtype, {{grad_output, dtype}, {self, dtype}});
  cuda::launch_activation_backward(op, dtype, launch.args());
  launch.finish();
}

cuda::ActivationOp gelu_op(std::string_view approximate, const char* name) {
  return gelu_approximation(approximate, name) == GeluApproximation::Tanh ? cuda::ActivationOp::GeluTanh
                                                                          : cuda::ActivationOp::Gelu;
}

void softmax_forward(const char* op, bool log, const Tensor& self, int64_t dim, bool half_to_float,
                     const Tensor& out) {
  check_no_half_to_float(op, half_to_float);
  const DimBlocks blocks = blocks_around(self.sizes(), maybe_wrap_dim(dim, self.dim(), op));
  if (self.numel() == 0) return;
  const Tensor input = cuda::contiguous_as(self, out.scalar_type());
  cuda::launch_softmax(out.scalar_type(), log, input.data_ptr(), out.data_ptr(), blocks, op);
}

void softmax_backward(const char* op, bool log, const Tensor& grad_output, const Tensor& output, int64_t dim,
                      const Tensor& grad_input) {
  const DimBlocks blocks = blocks_around(output.sizes(), maybe_wrap_dim(dim, output.dim(), op));
  if (output.numel() == 0) return;
  const Tensor g = cuda::contiguous_as(grad_output, grad_input.scalar_type());
  const Tensor y = cuda::contiguous_as(output, grad_input.scalar_type());
  cuda::launch_softmax_backward(grad_input.scalar_type(), log, g.data_ptr(), y.data_ptr(), grad_input.data_ptr(),
                                blocks, op);
}

}  // namespace

void native::gelu_out_cuda(const Tensor& self, std::string_view approximate, const Tensor& out) {
  activation_out(gelu_op(approximate, "gelu"), "gelu", self, out);
}

void native::gelu_backward_out_cuda(const Tensor& grad_output, const Tensor& self, std::string_view approximate,
                                    const Tensor& grad_input) {
  activation_backward_out(gelu_op(approximate, "gelu_backward"), "gelu_backward", grad_output, self, grad_input);
}

void native::silu_out_cuda(const Tensor& self, const Tensor& out) {
  activation_out(cuda::ActivationOp::Silu, "silu", self, out);
}

void native::silu_backward_out_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& grad_input) {
  activation_backward_out(cuda::ActivationOp::Silu, "silu_backward", grad_output, self, grad_input);
}

void native::threshold_backward_out_cuda(const Tensor& grad_output, const Tensor& self, const Scalar& threshold,
                                         const Tensor& grad_input) {
  const ScalarType dtype = cuda::kernel_dtype(grad_input.scalar_type(), grad_input, {&grad_output, &self});
  cuda::ElementwiseLaunch launch("threshold_backward", grad_input, dtype, {{grad_output, dtype}, {self, dtype}});
  cuda::launch_threshold_backward(dtype, launch.args(), cuda::scalar_value(threshold));
  launch.finish();
}

void native::softmax_out_cuda(const Tensor& self, int64_t dim, bool half_to_float, const Tensor& out) {
  softmax_forward("softmax", false, self, dim, half_to_float, out);
}

void native::log_softmax_out_cuda(const Tensor& self, int64_t dim, bool half_to_float, const Tensor& out) {
  softmax_forward("log_softmax", true, self, dim, half_to_float, out);
}

void native::softmax_backward_data_out_cuda(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                            ScalarType /*input_dtype*/, const Tensor& grad_input) {
  softmax_backward("softmax_backward", false, grad_output, output, dim, grad_input);
}

void native::log_softmax_backward_data_out_cuda(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                                ScalarType /*input_dtype*/, const Tensor& grad_input) {
  softmax_backward("log_softmax_backward", true, grad_output, output, dim, grad_input);
}

}  // namespace tg
