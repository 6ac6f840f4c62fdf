#include "ops/scalar_tensor.h"

#include "core/data_read_hook.h"

#include "tensorgen/ops.h"

namespace tg {

void store_scalar(void* data, ScalarType t, const Scalar& s) {
  switch (t) {
#define TG_STORE_CASE(ctype, name, str)                  \
  case ScalarType::name:                                 \
    *static_cast<ctype*>(data) = s.to<ctype>();          \
    return;
    TG_FORALL_SCALAR_TYPES(TG_STORE_CASE)
#undef TG_STORE_CASE
    case ScalarType::Undefined: break;
  }
  TG_ERROR("[store_scalar] undefined dtype");
}

Scalar load_scalar(const void* data, ScalarType t) {
  switch (t) {
#define TG_LOAD_CASE(ctype, name, str) \
  case ScalarType::name:               \
    return Scalar(*static_cast<const ctype*>(data));
    TG_FORALL_SCALAR_TYPES(TG_LOAD_CASE)
#undef TG_LOAD_CASE
    case ScalarType::Undefined: break;
  }
  TG_ERROR("[load_scalar] undefined dtype");
}

Tensor scalar_tensor(const Scalar& s, ScalarType dtype, Device device) {
  Tensor cpu = make_empty_tensor({}, dtype, Device(kCPU));
  store_scalar(cpu.data_ptr(), dtype, s);
  return device.is_cpu() ? cpu : cpu.to(TensorOptions().device(device));
}

Scalar TensorBase::item() const {
  notify_data_read("item()", *this);
  TG_CHECK_VALUE(numel() == 1, "[item] a Tensor with ", numel(), " elements cannot be converted to Scalar");
  Tensor t(*this);
  if (!t.is_cpu()) t = t.to(TensorOptions().device(kCPU));
  return load_scalar(t.data_ptr(), t.scalar_type());
}

Tensor wrapped_scalar_tensor(const Scalar& s) {
  Tensor t = scalar_tensor(s, s.type());
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

}  // namespace tg
