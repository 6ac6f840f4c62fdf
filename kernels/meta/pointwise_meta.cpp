// The hand-written meta functions of schemas/pointwise.yaml (output shape and dtype, and the
// input checks PyTorch makes before computing anything): those of the operators with checks
// of their own (`meta: custom`: sub, neg) and of clamp and where, whose kernels are not
// generated. The others' metas are their kernel family's (pointwise_math_loops.h).
#include "NativeFunctions.h"
#include "meta/common_meta.h"
#include "pointwise_math_loops.h"
#include "shape_utils.h"

namespace tg {

// sub's kernels are generated (`kernel:` with `meta: custom`); its meta refuses bool first,
// with PyTorch's messages, then checks alpha as the binary family's meta does.
TensorMeta meta::sub_out(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  const bool self_bool = self.scalar_type() == kBool, other_bool = other.scalar_type() == kBool;
  TG_CHECK_TYPE(!(self_bool && other_bool), "[sub] subtraction, the `-` operator, with two bool tensors is not ",
                "supported; use the `^` or logical_xor() operator instead");
  TG_CHECK_TYPE(!(self_bool || other_bool), "[sub] subtraction, the `-` operator, with a bool tensor is not ",
                "supported; if you are trying to invert a mask, use the `~` or logical_not() operator instead");
  TensorMeta meta = binary_meta("sub", self, other);
  pointwise_math::check_alpha("sub", meta.dtype, alpha);
  return meta;
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
