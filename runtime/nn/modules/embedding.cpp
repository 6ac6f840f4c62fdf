#include "nn/modules/embedding.h"

#include <ostream>

#include "autograd/grad_mode.h"
#include "nn/functional/embedding.h"
#include "nn/init.h"
#include "tensorgen/ops.h"

namespace tg::nn {

EmbeddingImpl::EmbeddingImpl(EmbeddingOptions options_) : options(std::move(options_)) {
  TG_CHECK(options.num_embeddings() > 0 && options.embedding_dim() > 0,
           "[nn::Embedding] num_embeddings and embedding_dim must be positive, got ", options.num_embeddings(), " and ",
           options.embedding_dim());
  if (options.padding_idx()) {
    const int64_t n = options.num_embeddings();
    int64_t& padding_idx = *options.padding_idx();
    TG_CHECK(padding_idx >= -n && padding_idx < n, "[nn::Embedding] padding_idx must be within num_embeddings (", n,
             "), got ", padding_idx);
    if (padding_idx < 0) padding_idx += n;
  }
  TG_CHECK(!options.max_norm(), "[nn::Embedding] max_norm is not supported yet");
  TG_CHECK(!options.sparse(), "[nn::Embedding] sparse gradients are not supported");
  reset();
}

void EmbeddingImpl::reset() {
  if (options._weight().defined()) {
    TG_CHECK(options._weight().dim() == 2 && options._weight().size(0) == options.num_embeddings() &&
                 options._weight().size(1) == options.embedding_dim(),
             "[nn::Embedding] _weight must be [", options.num_embeddings(), ", ", options.embedding_dim(), "], got ",
             options._weight().sizes());
    weight = register_parameter("weight", options._weight());
  } else {
    weight = register_parameter("weight", tg::empty({options.num_embeddings(), options.embedding_dim()}));
    reset_parameters();
  }
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx()) {
    NoGradGuard no_grad;
    weight.select(0, *options.padding_idx()).fill_(0);
  }
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << "tg::nn::Embedding(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  stream << ")";
}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  return functional::embedding(indices, weight,
                               functional::EmbeddingFuncOptions()
                                   .padding_idx(options.padding_idx())
                                   .scale_grad_by_freq(options.scale_grad_by_freq()));
}

}  // namespace tg::nn
