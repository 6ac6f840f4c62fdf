// Options of Embedding and F::embedding, in LibTorch's names and defaults. max_norm and sparse
// gradients are not supported (docs/porting.md): setting them raises tg::Error.
#pragma once

#include <cstdint>
#include <optional>

#include "core/tensor.h"
#include "core/arg.h"

namespace tg::nn {

struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  TG_ARG(int64_t, num_embeddings);
  TG_ARG(int64_t, embedding_dim);
  TG_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TG_ARG(std::optional<double>, max_norm) = std::nullopt;
  TG_ARG(bool, scale_grad_by_freq) = false;
  TG_ARG(bool, sparse) = false;
  TG_ARG(Tensor, _weight);
};

namespace functional {
struct EmbeddingFuncOptions {
  TG_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TG_ARG(std::optional<double>, max_norm) = std::nullopt;
  TG_ARG(bool, scale_grad_by_freq) = false;
  TG_ARG(bool, sparse) = false;
};
}  // namespace functional
}  // namespace tg::nn
