// GELU's `approximate` argument: 'none' is the exact x * Phi(x) (Phi the standard normal
// CDF), 'tanh' the approximation 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
#pragma once

#include <string_view>

#include "core/error.h"

namespace tg {

enum class GeluApproximation { None, Tanh };

inline GeluApproximation gelu_approximation(std::string_view approximate, const char* op) {
  if (approximate == "none") return GeluApproximation::None;
  TG_CHECK_VALUE(approximate == "tanh", "[", op, "] approximate argument must be either 'none' or 'tanh', got '",
                 approximate, "'");
  return GeluApproximation::Tanh;
}

}  // namespace tg
