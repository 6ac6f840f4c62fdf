// The ops of the examples' models (a CNN: conv2d, relu, max_pool2d, linear, cross_entropy; a
// transformer block: embedding, layer_norm, linear, causal attention, gelu, cross_entropy) under
// vmap(grad) for per-sample gradients, and jacrev: every op has a batching rule (no loop
// fallback), and the results equal a loop of reverse-mode gradients of the plain model.
#include <doctest/doctest.h>

#include <string>

#include <tensorgen/tensorgen.h>

#include "transforms_test_helpers.h"

namespace {

using tg::Tensor;
namespace func = tg::func;

using transforms_test::f64;
using transforms_test::max_diff;

// Random class indices in [0, classes) of the given shape.
Tensor random_classes(int64_t classes, std::vector<int64_t> shape) {
  return (tg::rand(shape, f64()) * static_cast<double>(classes)).to(tg::kLong);  // truncates
}

std::string fallbacks() {
  std::string out;
  for (const auto& [name, count] : func::vmap_fallbacks()) out += name + " " + std::to_string(count) + "; ";
  return out;
}

// One sample: an image [1, 1, 6, 6] and its class [1].
struct Cnn {
  Tensor conv_w = tg::randn({3, 1, 3, 3}, f64()), conv_b = tg::randn({3}, f64());
  Tensor fc_w = tg::randn({4, 27}, f64()), fc_b = tg::randn({4}, f64());
  Tensor operator()(const Tensor& conv_weight, const Tensor& fc_weight, const Tensor& image,
                    const Tensor& label) const {
    Tensor h = tg::relu(tg::conv2d(image, conv_weight, conv_b, {1, 1}, {1, 1}));  // [1, 3, 6, 6]
    h = tg::max_pool2d(h, {2, 2});                                                // [1, 3, 3, 3]
    Tensor logits = tg::linear(h.reshape({1, 27}), fc_weight, fc_b);
    return tg::nn::functional::cross_entropy(logits, label);
  }
};

// One sample: a sequence of 5 tokens and its 5 next tokens.
struct Transformer {
  static constexpr int64_t kVocab = 7, kWidth = 4, kTime = 5;
  Tensor tokens_w = tg::randn({kVocab, kWidth}, f64()), positions_w = tg::randn({kTime, kWidth}, f64());
  Tensor norm_w = tg::randn({kWidth}, f64()), norm_b = tg::randn({kWidth}, f64());
  Tensor qkv_w = tg::randn({3 * kWidth, kWidth}, f64()), head_w = tg::randn({kVocab, kWidth}, f64());
  Tensor operator()(const Tensor& token_table, const Tensor& norm_weight, const Tensor& tokens,
                    const Tensor& targets) const {
    Tensor positions = tg::arange(kTime, tg::TensorOptions().dtype(tg::kLong));
    Tensor x = tg::embedding(token_table, tokens) + tg::embedding(positions_w, positions);  // [T, D]
    Tensor h = tg::layer_norm(x, {kWidth}, norm_weight, norm_b);
    Tensor qkv = tg::linear(h, qkv_w).view({kTime, 3, kWidth}).permute({1, 0, 2});  // [3, T, D]
    Tensor y = tg::scaled_dot_product_attention(qkv.select(0, 0).unsqueeze(0), qkv.select(0, 1).unsqueeze(0),
                                                qkv.select(0, 2).unsqueeze(0), {}, 0.0, true);
    Tensor logits = tg::linear(tg::gelu(x + y.squeeze(0)), head_w);  // [T, V]
    return tg::nn::functional::cross_entropy(logits, targets);
  }
};

}  // namespace

TEST_CASE("models: per-sample gradients of a CNN with vmap(grad) equal a loop, with no fallback") {
  Cnn cnn;
  const int64_t batch = 4;
  Tensor images = tg::randn({batch, 1, 1, 6, 6}, f64());
  Tensor labels = random_classes(4, {batch, 1});
  auto loss = [&](const Tensor& cw, const Tensor& fw, const Tensor& x, const Tensor& y) { return cnn(cw, fw, x, y); };
  func::reset_vmap_fallbacks();
  Tensor conv_grads =
      func::vmap(func::grad(loss, 0), {std::nullopt, std::nullopt, 0, 0})(cnn.conv_w, cnn.fc_w, images, labels);
  Tensor fc_grads =
      func::vmap(func::grad(loss, 1), {std::nullopt, std::nullopt, 0, 0})(cnn.conv_w, cnn.fc_w, images, labels);
  CHECK_MESSAGE(func::vmap_fallback_count() == 0, fallbacks());
  for (int64_t i = 0; i < batch; ++i) {
    Tensor cw = cnn.conv_w.detach().requires_grad_(true), fw = cnn.fc_w.detach().requires_grad_(true);
    Tensor l = cnn(cw, fw, images.select(0, i), labels.select(0, i));
    auto grads = tg::autograd::grad({l}, {cw, fw});
    CHECK(max_diff(conv_grads.select(0, i), grads[0]) < 1e-10);
    CHECK(max_diff(fc_grads.select(0, i), grads[1]) < 1e-10);
  }
}

TEST_CASE("models: per-sample gradients of a transformer block with vmap(grad) equal a loop, with no fallback") {
  Transformer model;
  const int64_t batch = 3;
  Tensor tokens = random_classes(Transformer::kVocab, {batch, Transformer::kTime});
  Tensor targets = random_classes(Transformer::kVocab, {batch, Transformer::kTime});
  auto loss = [&](const Tensor& table, const Tensor& norm, const Tensor& x, const Tensor& y) {
    return model(table, norm, x, y);
  };
  const std::vector<std::optional<int64_t>> in_dims{std::nullopt, std::nullopt, 0, 0};
  func::reset_vmap_fallbacks();
  Tensor table_grads = func::vmap(func::grad(loss, 0), in_dims)(model.tokens_w, model.norm_w, tokens, targets);
  Tensor norm_grads = func::vmap(func::grad(loss, 1), in_dims)(model.tokens_w, model.norm_w, tokens, targets);
  CHECK_MESSAGE(func::vmap_fallback_count() == 0, fallbacks());
  for (int64_t i = 0; i < batch; ++i) {
    Tensor table = model.tokens_w.detach().requires_grad_(true), norm = model.norm_w.detach().requires_grad_(true);
    auto grads = tg::autograd::grad({model(table, norm, tokens.select(0, i), targets.select(0, i))}, {table, norm});
    CHECK(max_diff(table_grads.select(0, i), grads[0]) < 1e-10);
    CHECK(max_diff(norm_grads.select(0, i), grads[1]) < 1e-10);
  }
}

TEST_CASE("models: jacrev of the CNN's logits by its conv weight against finite differences, no fallback") {
  Cnn cnn;
  Tensor image = tg::randn({2, 1, 6, 6}, f64());
  auto logits = [&](const Tensor& cw) {
    Tensor h = tg::max_pool2d(tg::relu(tg::conv2d(image, cw, cnn.conv_b, {1, 1}, {1, 1})), {2, 2});
    return tg::linear(h.reshape({2, 27}), cnn.fc_w, cnn.fc_b);
  };
  func::reset_vmap_fallbacks();
  Tensor jac = func::jacrev(logits)(cnn.conv_w);  // [2, 4, 3, 1, 3, 3]
  CHECK_MESSAGE(func::vmap_fallback_count() == 0, fallbacks());
  REQUIRE(jac.sizes() == tg::IntArrayRef({2, 4, 3, 1, 3, 3}));
  const double eps = 1e-6;
  Tensor u = tg::randn({3, 1, 3, 3}, f64());
  Tensor fd = (logits(cnn.conv_w + eps * u) - logits(cnn.conv_w - eps * u)) / (2 * eps);
  CHECK(max_diff((jac * u).sum({2, 3, 4, 5}), fd) < 1e-6);
}
