// Options of Linear, Bilinear and Flatten, in LibTorch's names and defaults.
#pragma once

#include <cstdint>

#include "core/arg.h"

namespace tg::nn {

struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features) : in_features_(in_features), out_features_(out_features) {}
  TG_ARG(int64_t, in_features);
  TG_ARG(int64_t, out_features);
  TG_ARG(bool, bias) = true;
};

struct BilinearOptions {
  BilinearOptions(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}
  TG_ARG(int64_t, in1_features);
  TG_ARG(int64_t, in2_features);
  TG_ARG(int64_t, out_features);
  TG_ARG(bool, bias) = true;
};

struct FlattenOptions {
  TG_ARG(int64_t, start_dim) = 1;
  TG_ARG(int64_t, end_dim) = -1;
};

}  // namespace tg::nn
