// nn::functional dropout with LibTorch's DropoutFuncOptions (training defaults to true, as there).
#pragma once

#include "core/error.h"
#include "nn/options/dropout.h"
#include "tensorgen/ops.h"

namespace tg::nn::functional {

inline Tensor dropout(Tensor input, const DropoutFuncOptions& options = {}) {
  TG_CHECK(options.p() >= 0 && options.p() <= 1, "[nn::functional::dropout] dropout probability has to be between 0 and 1, but got ",
           options.p());
  Tensor result = tg::dropout(input, options.p(), options.training());
  return options.inplace() ? input.copy_(result) : result;
}

}  // namespace tg::nn::functional
