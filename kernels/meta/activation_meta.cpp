// Meta functions of the activations and the softmax family (schemas/activation.yaml).
#include "NativeFunctions.h"
#include "core/wrap_dim.h"
#include "gelu_approximation.h"
#include "meta/common_meta.h"

namespace tg {

namespace {

// softmax and log_softmax: self's shape; float32 from float16 when half_to_float.
TensorMeta softmax_meta(const char* op, const Tensor& self, int64_t dim, bool half_to_float) {
  maybe_wrap_dim(dim, self.dim(), op);
  if (half_to_float) {
    TG_CHECK_TYPE(self.scalar_type() == kHalf, "[", op, "] conversion to float is supported for float16 input only, "
                  "got ", self.scalar_type());
  }
  return TensorMeta{self.sizes(), half_to_float ? kFloat : self.scalar_type()};
}

TensorMeta softmax_backward_meta(const char* op, const Tensor& grad_output, const Tensor& output, int64_t dim) {
  TG_CHECK_VALUE(grad_output.sizes() == output.sizes(), "[", op, "] expected grad_output and output of one shape, "
                 "got ", grad_output.sizes(), " and ", output.sizes());
  maybe_wrap_dim(dim, output.dim(), op);
  return TensorMeta{grad_output.sizes(), grad_output.scalar_type()};
}

}  // namespace

TensorMeta meta::gelu_out(const Tensor& self, std::string_view approximate) {
  gelu_approximation(approximate, "gelu");
  return unary_meta("gelu", self);
}

TensorMeta meta::gelu_backward_grad_input(const Tensor& grad_output, const Tensor& self,
                                          std::string_view approximate) {
  gelu_approximation(approximate, "gelu_backward");
  return binary_meta("gelu_backward", grad_output, self);
}

TensorMeta meta::silu_out(const Tensor& self) { return unary_meta("silu", self); }

TensorMeta meta::silu_backward_grad_input(const Tensor& grad_output, const Tensor& self) {
  return binary_meta("silu_backward", grad_output, self);
}

TensorMeta meta::threshold_backward_grad_input(const Tensor& grad_output, const Tensor& self,
                                               const Scalar& /*threshold*/) {
  return binary_meta("threshold_backward", grad_output, self);
}

TensorMeta meta::_softmax_out(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_meta("softmax", self, dim, half_to_float);
}

TensorMeta meta::_log_softmax_out(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_meta("log_softmax", self, dim, half_to_float);
}

TensorMeta meta::_softmax_backward_data_out(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                            ScalarType /*input_dtype*/) {
  return softmax_backward_meta("softmax_backward", grad_output, output, dim);
}

TensorMeta meta::_log_softmax_backward_data_out(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                                ScalarType /*input_dtype*/) {
  return softmax_backward_meta("log_softmax_backward", grad_output, output, dim);
}

}  // namespace tg
