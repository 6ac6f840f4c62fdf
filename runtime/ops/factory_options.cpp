#include "ops/factory_options.h"

#include "core/error.h"

namespace tg {

Tensor apply_requires_grad_option(std::string_view op, Tensor result, const TensorOptions& options) {
  if (!options.requires_grad()) return result;
  TG_CHECK_VALUE(is_floating_type(result.scalar_type()), "[", op,
                 "] Only Tensors of floating point and complex dtype can require gradients, got ",
                 result.scalar_type());
  result.requires_grad_(true);
  return result;
}

void refuse_requires_grad_option(std::string_view op, const TensorOptions& options) {
  TG_CHECK_VALUE(!options.requires_grad(), "[", op,
                 "] ", op, "(options) expects unset requires_grad flag, but got options.requires_grad set as true");
}

}  // namespace tg
