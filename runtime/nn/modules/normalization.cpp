#include "nn/modules/normalization.h"

#include <ostream>

#include "nn/functional/normalization.h"
#include "nn/init.h"
#include "tensorgen/ops.h"

namespace tg::nn {

LayerNormImpl::LayerNormImpl(LayerNormOptions options_) : options(std::move(options_)) {
  TG_CHECK(!options.normalized_shape().empty(), "[nn::LayerNorm] normalized_shape must not be empty");
  reset();
}

void LayerNormImpl::reset() {
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", tg::empty(options.normalized_shape()));
    bias = register_parameter("bias", tg::empty(options.normalized_shape()));
  } else {
    weight = register_parameter("weight", Tensor(), false);
    bias = register_parameter("bias", Tensor(), false);
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (!options.elementwise_affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

void LayerNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "tg::nn::LayerNorm([";
  for (size_t i = 0; i < options.normalized_shape().size(); ++i) stream << (i ? ", " : "") << options.normalized_shape()[i];
  stream << "], eps=" << options.eps() << ", elementwise_affine=" << options.elementwise_affine() << ")";
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return functional::layer_norm(
      input, functional::LayerNormFuncOptions(options.normalized_shape()).weight(weight).bias(bias).eps(options.eps()));
}

}  // namespace tg::nn
