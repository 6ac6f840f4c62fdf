// Options of Conv1d/2d/3d (ConvOptions<D>) and of F::conv1d/2d/3d (ConvFuncOptions<D>), in
// LibTorch's names and defaults. Padding is a number per dimension; LibTorch's kSame/kValid
// and padding modes other than zeros are not supported (docs/porting.md).
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "core/arg.h"
#include "frontend/expanding_array.h"

namespace tg::nn {

template <size_t D>
struct ConvOptions {
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  TG_ARG(int64_t, in_channels);
  TG_ARG(int64_t, out_channels);
  TG_ARG(ExpandingArray<D>, kernel_size);
  TG_ARG(ExpandingArray<D>, stride) = 1;
  TG_ARG(ExpandingArray<D>, padding) = 0;
  TG_ARG(ExpandingArray<D>, dilation) = 1;
  TG_ARG(int64_t, groups) = 1;
  TG_ARG(bool, bias) = true;
};

using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

namespace functional {

template <size_t D>
struct ConvFuncOptions {
  TG_ARG(Tensor, bias);
  TG_ARG(ExpandingArray<D>, stride) = 1;
  TG_ARG(ExpandingArray<D>, padding) = 0;
  TG_ARG(ExpandingArray<D>, dilation) = 1;
  TG_ARG(int64_t, groups) = 1;
};

using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;

}  // namespace functional
}  // namespace tg::nn
