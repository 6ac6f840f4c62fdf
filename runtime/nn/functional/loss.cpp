#include "nn/functional/loss.h"

#include "core/error.h"

namespace tg::nn::functional {

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options) {
  TG_CHECK(input.sizes().vec() == target.sizes().vec(), "[nn::functional::l1_loss] input and target must have the same shape, got ",
           input.sizes(), " and ", target.sizes());
  const Tensor loss = (input - target).abs();
  switch (reduction_value(options.reduction())) {
    case Reduction::None: return loss;
    case Reduction::Sum: return loss.sum();
    default: return loss.mean();
  }
}

}  // namespace tg::nn::functional
