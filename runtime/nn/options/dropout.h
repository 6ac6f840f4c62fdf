// Options of Dropout and F::dropout, in LibTorch's names and defaults.
#pragma once

#include "core/arg.h"

namespace tg::nn {

struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT: implicit like LibTorch
  TG_ARG(double, p);
  TG_ARG(bool, inplace) = false;
};

namespace functional {
struct DropoutFuncOptions {
  TG_ARG(double, p) = 0.5;
  TG_ARG(bool, training) = true;
  TG_ARG(bool, inplace) = false;
};
}  // namespace functional
}  // namespace tg::nn
