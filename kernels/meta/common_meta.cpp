#include "meta/common_meta.h"

#include "shape_utils.h"

namespace tg {

ScalarType result_type(std::initializer_list<const Tensor*> operands) {
  // Tensors of one dtype and no wrapped number: that dtype, whatever their dims (the common
  // case, without the three-category promotion below).
  const ScalarType dtype = operands.size() > 0 ? (*operands.begin())->scalar_type() : ScalarType::Undefined;
  bool uniform = operands.size() > 0;
  for (const Tensor* t : operands) {
    uniform = uniform && t->scalar_type() == dtype && !t->unsafeGetTensorImpl()->is_wrapped_number();
  }
  if (uniform) return dtype;
  ResultTypeState state;
  for (const Tensor* t : operands) {
    if (t->unsafeGetTensorImpl()->is_wrapped_number()) {
      state.add_scalar(t->scalar_type());
    } else {
      state.add_tensor(t->scalar_type(), t->dim());
    }
  }
  return state.result();
}

TensorMeta binary_meta(const char* op, const Tensor& a, const Tensor& b) {
  // Equal shapes of one dtype, neither a wrapped number (the common case): the broadcast and
  // the promotion have nothing to do, and `op` (whose length a string_view would measure) is
  // only needed for their errors.
  const IntArrayRef sizes = a.sizes();
  if (sizes == b.sizes() && a.scalar_type() == b.scalar_type() && !a.unsafeGetTensorImpl()->is_wrapped_number() &&
      !b.unsafeGetTensorImpl()->is_wrapped_number()) {
    return TensorMeta{DimVector(sizes), a.scalar_type()};
  }
  return TensorMeta{infer_broadcast_size(a.sizes(), b.sizes(), op), result_type(a, b)};
}

TensorMeta comparison_meta(const char* op, const Tensor& a, const Tensor& b) {
  return TensorMeta{infer_broadcast_size(a.sizes(), b.sizes(), op), kBool};
}

TensorMeta unary_meta(const char* /*op*/, const Tensor& self) { return TensorMeta{self.sizes(), self.scalar_type()}; }

TensorMeta unary_float_meta(const char* /*op*/, const Tensor& self) {
  const ScalarType dtype = is_floating_type(self.scalar_type()) ? self.scalar_type() : default_dtype();
  return TensorMeta{self.sizes(), dtype};
}

}  // namespace tg
