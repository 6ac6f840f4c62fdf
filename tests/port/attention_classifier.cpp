// Port program 2: a small model with embeddings and attention, written as a LibTorch program:
// Embedding -> MultiheadAttention (self-attention, [L, N, E]) -> mean over positions ->
// Linear, trained by gradient descent to tell whether a sequence contains token 3.
#include <cstdint>
#include <vector>

#include "port.h"

namespace F = torch::nn::functional;

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl(int64_t vocabulary, int64_t width, int64_t heads)
      : embedding(register_module("embedding", torch::nn::Embedding(vocabulary, width))),
        attention(register_module("attention",
                                  torch::nn::MultiheadAttention(torch::nn::MultiheadAttentionOptions(width, heads)))),
        head(register_module("head", torch::nn::Linear(width, 2))) {}

  // tokens [N, L] -> logits [N, 2]
  torch::Tensor forward(const torch::Tensor& tokens) {
    const auto x = embedding(tokens).transpose(0, 1);  // [L, N, E]
    const auto attended = std::get<0>(attention(x, x, x));
    return head(attended.mean({0}));
  }

  torch::nn::Embedding embedding;
  torch::nn::MultiheadAttention attention;
  torch::nn::Linear head;
};
TORCH_MODULE(Classifier);

int main() {
  const int64_t count = 96, length = 6, vocabulary = 8;
  // Sequences from a linear congruential generator, so both libraries see the same data.
  std::vector<int64_t> tokens, labels;
  uint32_t state = 12345;
  for (int64_t n = 0; n < count; ++n) {
    bool has_three = false;
    for (int64_t t = 0; t < length; ++t) {
      state = state * 1664525u + 1013904223u;
      const int64_t token = static_cast<int64_t>((state >> 16) % static_cast<uint32_t>(vocabulary));
      has_three = has_three || token == 3;
      tokens.push_back(token);
    }
    labels.push_back(has_three ? 1 : 0);
  }
  const auto inputs = torch::tensor(tokens).view({count, length});
  const auto targets = torch::tensor(labels);

  Classifier model(vocabulary, 16, 2);
  port::deterministic_init(*model);
  for (const auto& item : model->named_parameters()) {
    port::report("parameter." + item.key() + ".numel", static_cast<double>(item.value().numel()));
  }
  for (int step = 0; step <= 300; ++step) {
    model->zero_grad();
    const auto loss = F::cross_entropy(model->forward(inputs), targets);
    if (step % 50 == 0) port::report("loss.step" + std::to_string(step), loss.item<double>());
    if (step == 300) break;
    loss.backward();
    port::sgd_step(*model, 0.5);
  }
  torch::NoGradGuard no_grad;
  model->eval();
  const auto predicted = model->forward(inputs).argmax(1);
  port::report("accuracy", static_cast<double>(predicted.eq(targets).sum().item<int64_t>()) / static_cast<double>(count));
  return 0;
}
