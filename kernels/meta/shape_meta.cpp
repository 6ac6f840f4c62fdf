// Meta functions of the shape family (schemas/shape.yaml).
#include "NativeFunctions.h"

namespace tg {

namespace {

TensorMeta triangle_meta(const char* op, const Tensor& self) {
  TG_CHECK_VALUE(self.dim() >= 2, "[", op, "] input tensor must have at least 2 dimensions, got a tensor of shape ",
                 self.sizes());
  return TensorMeta{self.sizes(), self.scalar_type()};
}

}  // namespace

TensorMeta meta::tril_out(const Tensor& self, int64_t /*diagonal*/) { return triangle_meta("tril", self); }
TensorMeta meta::triu_out(const Tensor& self, int64_t /*diagonal*/) { return triangle_meta("triu", self); }

}  // namespace tg
