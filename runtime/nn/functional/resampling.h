// nn::functional pad and interpolate, as LibTorch's: interpolate picks upsample_nearest1d/2d/3d
// or upsample_linear1d / bilinear2d / trilinear3d from the mode and the input's rank.
#pragma once

#include "nn/options/resampling.h"
#include "tensorgen/ops.h"

namespace tg::nn::functional {

Tensor pad(const Tensor& input, const PadFuncOptions& options);

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});

}  // namespace tg::nn::functional
