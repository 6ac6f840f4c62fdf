#include "nn/functional/conv.h"

#include "core/error.h"

namespace tg::nn::functional {

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options) {
  TG_CHECK(input.dim() == 2 || input.dim() == 3, "[nn::functional::conv1d] expected a 2-d [C, L] or 3-d [N, C, L] input, got ",
           input.sizes());
  TG_CHECK(weight.dim() == 3, "[nn::functional::conv1d] expected a 3-d [out, in / groups, kernel] weight, got ",
           weight.sizes());
  return tg::conv1d(input, weight, detail::optional_tensor(options.bias()), options.stride(), options.padding(),
                    options.dilation(), options.groups());
}

}  // namespace tg::nn::functional
