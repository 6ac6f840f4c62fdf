// masked_fill's functional and Tensor-value overloads over the in-place kernel masked_fill_.
#include "NativeFunctions.h"
#include "tensorgen/ops.h"

namespace tg::native {

namespace {

Scalar value_of(const char* op, const Tensor& value) {
  TG_CHECK_VALUE(value.dim() == 0, "[", op, "] only supports a 0-dimensional value tensor, but got tensor with ",
                 value.dim(), " dimension(s)");
  return value.item();
}

}  // namespace

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  Tensor result = self.clone();
  result.masked_fill_(mask, value);
  return result;
}

Tensor masked_fill_tensor(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return native::masked_fill(self, mask, value_of("masked_fill", value));
}

Tensor masked_fill_tensor_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return self.masked_fill_(mask, value_of("masked_fill_", value));
}

}  // namespace tg::native
