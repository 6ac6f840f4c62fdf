// nn::functional embedding and one_hot, as LibTorch's.
#pragma once

#include "core/error.h"
#include "nn/options/embedding.h"
#include "tensorgen/ops.h"

namespace tg::nn::functional {

inline Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options = {}) {
  TG_CHECK(!options.max_norm().has_value(), "[nn::functional::embedding] max_norm is not supported yet");
  TG_CHECK(!options.sparse(), "[nn::functional::embedding] sparse gradients are not supported");
  int64_t padding_idx = -1;
  if (options.padding_idx()) {
    padding_idx = *options.padding_idx();
    const int64_t rows = weight.size(0);
    TG_CHECK(padding_idx >= -rows && padding_idx < rows, "[nn::functional::embedding] padding_idx must be within [",
             -rows, ", ", rows, "), got ", padding_idx);
    if (padding_idx < 0) padding_idx += rows;
  }
  return tg::embedding(weight, input, padding_idx, options.scale_grad_by_freq(), false);
}

inline Tensor one_hot(const Tensor& input, int64_t num_classes = -1) { return tg::one_hot(input, num_classes); }

}  // namespace tg::nn::functional
