// Embedding, as LibTorch's: a [num_embeddings, embedding_dim] table drawn from N(0, 1) (the
// padding_idx row zeroed, and kept out of the gradient); forward looks rows up by index.
#pragma once

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/embedding.h"

namespace tg::nn {

class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options);

  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& indices);

  EmbeddingOptions options;
  Tensor weight;  // [num_embeddings, embedding_dim]
};
TG_MODULE(Embedding);

}  // namespace tg::nn
