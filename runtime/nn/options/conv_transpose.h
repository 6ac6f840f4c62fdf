// Options of ConvTranspose1d/2d/3d (ConvTransposeOptions<D>) and of F::conv_transpose1d/2d/3d
// (ConvTransposeFuncOptions<D>), in LibTorch's names and defaults. output_padding must be
// below stride (docs/nn-ops.md).
#pragma once

#include <cstdint>

#include "core/arg.h"
#include "core/tensor.h"
#include "frontend/expanding_array.h"

namespace tg::nn {

template <size_t D>
struct ConvTransposeOptions {
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  TG_ARG(int64_t, in_channels);
  TG_ARG(int64_t, out_channels);
  TG_ARG(ExpandingArray<D>, kernel_size);
  TG_ARG(ExpandingArray<D>, stride) = 1;
  TG_ARG(ExpandingArray<D>, padding) = 0;
  TG_ARG(ExpandingArray<D>, output_padding) = 0;
  TG_ARG(int64_t, groups) = 1;
  TG_ARG(bool, bias) = true;
  TG_ARG(ExpandingArray<D>, dilation) = 1;
};

using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

namespace functional {

template <size_t D>
struct ConvTransposeFuncOptions {
  TG_ARG(Tensor, bias);
  TG_ARG(ExpandingArray<D>, stride) = 1;
  TG_ARG(ExpandingArray<D>, padding) = 0;
  TG_ARG(ExpandingArray<D>, output_padding) = 0;
  TG_ARG(int64_t, groups) = 1;
  TG_ARG(ExpandingArray<D>, dilation) = 1;
};

using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;

}  // namespace functional
}  // namespace tg::nn
