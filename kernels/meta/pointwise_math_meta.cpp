// Meta functions of schemas/pointwise_math.yaml: the floating unary functions keep the shape
// and give integral inputs the default dtype; atan2 is floating too; maximum, minimum, fmax and
// fmin keep the operands' result type, as in PyTorch.
#include "NativeFunctions.h"
#include "meta/common_meta.h"

namespace tg {

TensorMeta meta::sin_out(const Tensor& self) { return unary_float_meta("sin", self); }
TensorMeta meta::cos_out(const Tensor& self) { return unary_float_meta("cos", self); }
TensorMeta meta::tan_out(const Tensor& self) { return unary_float_meta("tan", self); }
TensorMeta meta::asin_out(const Tensor& self) { return unary_float_meta("asin", self); }
TensorMeta meta::acos_out(const Tensor& self) { return unary_float_meta("acos", self); }
TensorMeta meta::atan_out(const Tensor& self) { return unary_float_meta("atan", self); }
TensorMeta meta::sinh_out(const Tensor& self) { return unary_float_meta("sinh", self); }
TensorMeta meta::cosh_out(const Tensor& self) { return unary_float_meta("cosh", self); }
TensorMeta meta::exp2_out(const Tensor& self) { return unary_float_meta("exp2", self); }
TensorMeta meta::expm1_out(const Tensor& self) { return unary_float_meta("expm1", self); }
TensorMeta meta::log1p_out(const Tensor& self) { return unary_float_meta("log1p", self); }
TensorMeta meta::log2_out(const Tensor& self) { return unary_float_meta("log2", self); }
TensorMeta meta::log10_out(const Tensor& self) { return unary_float_meta("log10", self); }
TensorMeta meta::erf_out(const Tensor& self) { return unary_float_meta("erf", self); }
TensorMeta meta::erfinv_out(const Tensor& self) { return unary_float_meta("erfinv", self); }

TensorMeta meta::atan2_out(const Tensor& self, const Tensor& other) {
  TensorMeta meta = binary_meta("atan2", self, other);
  if (!is_floating_type(meta.dtype)) meta.dtype = default_dtype();
  return meta;
}
TensorMeta meta::maximum_out(const Tensor& self, const Tensor& other) { return binary_meta("maximum", self, other); }
TensorMeta meta::minimum_out(const Tensor& self, const Tensor& other) { return binary_meta("minimum", self, other); }
TensorMeta meta::fmax_out(const Tensor& self, const Tensor& other) { return binary_meta("fmax", self, other); }
TensorMeta meta::fmin_out(const Tensor& self, const Tensor& other) { return binary_meta("fmin", self, other); }

}  // namespace tg
