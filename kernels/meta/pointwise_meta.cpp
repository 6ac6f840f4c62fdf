// Meta functions of the pointwise family (schemas/pointwise.yaml): output shape and dtype,
// and the input checks PyTorch makes before computing anything.
#include "NativeFunctions.h"
#include "meta/common_meta.h"
#include "shape_utils.h"

namespace tg {

namespace {

// PyTorch's alpha_check: alpha must fit the result's category. Out of line, so that the
// common case below does not pay for the error messages' stack frame.
[[gnu::noinline]] void check_alpha_category(const char* op, ScalarType dtype, const Scalar& alpha) {
  TG_CHECK_TYPE(!alpha.is_boolean() || dtype == kBool, "[", op, "] boolean alpha only supported for boolean results, ",
                "got a ", dtype, " result");
  TG_CHECK_TYPE(is_floating_type(dtype) || alpha.is_integral(/*include_bool=*/true), "[", op,
                "] for integral input tensors, argument alpha must not be a floating point number, got alpha=", alpha,
                " for a ", dtype, " result");
}

inline void check_alpha(const char* op, ScalarType dtype, const Scalar& alpha) {
  if (is_floating_type(dtype) && !alpha.is_boolean()) return;  // the common case, which both checks pass
  check_alpha_category(op, dtype, alpha);
}

}  // namespace

TensorMeta meta::add_out(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  TensorMeta meta = binary_meta("add", self, other);
  check_alpha("add", meta.dtype, alpha);
  return meta;
}

TensorMeta meta::sub_out(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  const bool self_bool = self.scalar_type() == kBool, other_bool = other.scalar_type() == kBool;
  TG_CHECK_TYPE(!(self_bool && other_bool), "[sub] subtraction, the `-` operator, with two bool tensors is not ",
                "supported; use the `^` or logical_xor() operator instead");
  TG_CHECK_TYPE(!(self_bool || other_bool), "[sub] subtraction, the `-` operator, with a bool tensor is not ",
                "supported; if you are trying to invert a mask, use the `~` or logical_not() operator instead");
  TensorMeta meta = binary_meta("sub", self, other);
  check_alpha("sub", meta.dtype, alpha);
  return meta;
}

TensorMeta meta::mul_out(const Tensor& self, const Tensor& other) { return binary_meta("mul", self, other); }

// True division: integral and bool operands divide in the default dtype.
TensorMeta meta::div_out(const Tensor& self, const Tensor& other) {
  TensorMeta meta = binary_meta("div", self, other);
  if (!is_floating_type(meta.dtype)) meta.dtype = default_dtype();
  return meta;
}

TensorMeta meta::pow_Tensor_Tensor_out(const Tensor& self, const Tensor& exponent) {
  return binary_meta("pow", self, exponent);
}

// neg's kernels are generated (`kernel:` with `meta: custom`); its meta refuses bool first.
TensorMeta meta::neg_out(const Tensor& self) {
  TG_CHECK_TYPE(self.scalar_type() != kBool, "[neg] negation, the `-` operator, on a bool tensor is not supported; ",
                "if you are trying to invert a mask, use the `~` or logical_not() operator instead");
  return unary_meta("neg", self);
}

// The bounds take part in type promotion as Scalars: clamp(int_tensor, 0.5) is floating.
TensorMeta meta::clamp_out(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  TG_CHECK_VALUE(min.has_value() || max.has_value(), "[clamp] at least one of 'min' or 'max' must not be None");
  ScalarType dtype = self.scalar_type();
  if (!is_floating_type(dtype)) {
    ResultTypeState state;
    state.add_tensor(dtype, self.dim());
    if (min) state.add_scalar(min->type());
    if (max) state.add_scalar(max->type());
    dtype = state.result();
  }
  return TensorMeta{self.sizes(), dtype};
}

TensorMeta meta::where_self_out(const Tensor& condition, const Tensor& self, const Tensor& other) {
  TG_CHECK_TYPE(condition.scalar_type() == kBool, "[where] expected condition to be a boolean tensor, but got a ",
                "tensor with dtype ", condition.scalar_type());
  DimVector sizes = infer_broadcast_size(condition.sizes(), self.sizes(), "where");
  sizes = infer_broadcast_size(sizes, other.sizes(), "where");
  return TensorMeta{sizes, result_type(self, other)};
}

}  // namespace tg
