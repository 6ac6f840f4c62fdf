#include "nn/functional/conv.h"

#include "core/error.h"

namespace tg::nn::functional {

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options) {
  TG_CHECK(input.dim() == 2 || input.dim() == 3, "[nn::functional::conv1d] expected a 2-d [C, L] or 3-d [N, C, L] input, got ",
           input.sizes());
  TG_CHECK(weight.dim() == 3, "[nn::functional::conv1d] expected a 3-d [out, in / groups, kernel] weight, got ",
           weight.sizes());
  const bool batched = input.dim() == 3;
  const Tensor x = (batched ? input : input.unsqueeze(0)).unsqueeze(2);
  const Tensor result =
      tg::conv2d(x, weight.unsqueeze(2), detail::optional_tensor(options.bias()), {1, options.stride()[0]},
                 {0, options.padding()[0]}, {1, options.dilation()[0]}, options.groups())
          .squeeze(2);
  return batched ? result : result.squeeze(0);
}

}  // namespace tg::nn::functional
