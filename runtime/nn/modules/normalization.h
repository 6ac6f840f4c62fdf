// LayerNorm, as LibTorch's: normalises over the trailing normalized_shape dimensions, then
// (elementwise_affine) scales by weight (ones) and shifts by bias (zeros). BatchNorm and
// GroupNorm wait for their operators (docs/porting.md).
#pragma once

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/normalization.h"

namespace tg::nn {

class LayerNormImpl : public Cloneable<LayerNormImpl> {
 public:
  LayerNormImpl(std::vector<int64_t> normalized_shape) : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}  // NOLINT
  explicit LayerNormImpl(LayerNormOptions options);

  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  LayerNormOptions options;
  Tensor weight;  // normalized_shape, undefined without elementwise_affine
  Tensor bias;
};
TG_MODULE(LayerNorm);

}  // namespace tg::nn
