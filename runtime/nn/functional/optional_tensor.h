// An undefined Tensor (LibTorch's "no tensor" in options) as the operators' Tensor? argument.
#pragma once

#include <optional>

#include "core/tensor.h"

namespace tg::nn::functional::detail {

inline std::optional<Tensor> optional_tensor(const Tensor& tensor) {
  return tensor.defined() ? std::optional<Tensor>(tensor) : std::nullopt;
}

}  // namespace tg::nn::functional::detail
