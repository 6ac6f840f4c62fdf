// The built-in layers against hand computations: Linear, Bilinear, Conv1d/Conv2d, the
// pooling modules (adaptive pooling with uneven windows), Dropout, Embedding, LayerNorm,
// the activations, Flatten, the loss modules and MultiheadAttention; gradients by gradcheck.
#include <cmath>

#include "autograd/gradcheck.h"
#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;
namespace nn = tg::nn;
namespace F = tg::nn::functional;

namespace {

void check_close(const Values& actual, const Values& expected, double tolerance = 1e-5) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) CHECK(actual[i] == doctest::Approx(expected[i]).epsilon(tolerance));
}

}  // namespace

TEST_CASE("nn_layers: Linear is x W^T + b, initialised within 1/sqrt(in_features)") {
  nn::Linear linear(4, 3);
  CHECK(vec(linear->weight.sizes()) == Ints{3, 4});
  CHECK(vec(linear->bias.sizes()) == Ints{3});
  const double bound = 1.0 / std::sqrt(4.0);
  for (double w : elements(linear->weight)) CHECK(std::abs(w) <= bound);
  for (double b : elements(linear->bias)) CHECK(std::abs(b) <= bound);
  const Tensor x = tg::randn({2, 4});
  const Values xs = elements(x), ws = elements(linear->weight), bs = elements(linear->bias);
  Values expected;
  for (int i = 0; i < 2; ++i) {
    for (int o = 0; o < 3; ++o) {
      double sum = bs[o];
      for (int k = 0; k < 4; ++k) sum += xs[i * 4 + k] * ws[o * 4 + k];
      expected.push_back(sum);
    }
  }
  check_close(elements(linear(x)), expected);
  CHECK(contains(thrown<tg::Error>([&] { linear(tg::ones({2, 5})); }), "[nn::Linear] expected an input whose last size is 4"));
  nn::Linear no_bias(nn::LinearOptions(4, 3).bias(false));
  check_close(elements(no_bias(x)), elements(tg::matmul(x, no_bias->weight.t())));
}

TEST_CASE("nn_layers: Bilinear against the sum over i, j; gradients by gradcheck") {
  nn::Bilinear bilinear(2, 3, 2);
  const Tensor x1 = tg::randn({4, 2}), x2 = tg::randn({4, 3});
  const Values a = elements(x1), b = elements(x2), w = elements(bilinear->weight), bias = elements(bilinear->bias);
  Values expected;
  for (int n = 0; n < 4; ++n) {
    for (int o = 0; o < 2; ++o) {
      double sum = bias[o];
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) sum += a[n * 2 + i] * w[(o * 2 + i) * 3 + j] * b[n * 3 + j];
      expected.push_back(sum);
    }
  }
  check_close(elements(bilinear(x1, x2)), expected);
  const auto result = tg::autograd::gradcheck(
      [](const tg::autograd::variable_list& v) { return tg::autograd::variable_list{F::bilinear(v[0], v[1], v[2], v[3])}; },
      {tg::randn({3, 2}, tg::kDouble).requires_grad_(), tg::randn({3, 3}, tg::kDouble).requires_grad_(),
       tg::randn({2, 2, 3}, tg::kDouble).requires_grad_(), tg::randn({2}, tg::kDouble).requires_grad_()});
  CHECK_MESSAGE(result.ok, result.message);
}

TEST_CASE("nn_layers: Conv1d against a direct sum, with stride, padding and dilation") {
  nn::Conv1d conv(nn::Conv1dOptions(2, 3, 3).stride(2).padding(1).dilation(1));
  CHECK(vec(conv->weight.sizes()) == Ints{3, 2, 3});
  const Tensor x = tg::randn({1, 2, 7});
  const Tensor y = conv(x);
  REQUIRE(vec(y.sizes()) == Ints{1, 3, 4});  // floor((7 + 2 - 3) / 2) + 1
  const Values xs = elements(x), ws = elements(conv->weight), bs = elements(conv->bias);
  Values expected;
  for (int o = 0; o < 3; ++o) {
    for (int t = 0; t < 4; ++t) {
      double sum = bs[o];
      for (int c = 0; c < 2; ++c) {
        for (int k = 0; k < 3; ++k) {
          const int position = t * 2 - 1 + k;
          if (position >= 0 && position < 7) sum += ws[(o * 2 + c) * 3 + k] * xs[c * 7 + position];
        }
      }
      expected.push_back(sum);
    }
  }
  check_close(elements(y), expected);
  // Unbatched [C, L] input gives [O, L'].
  CHECK(vec(conv(x.squeeze(0)).sizes()) == Ints{3, 4});
  CHECK(contains(thrown<tg::Error>([&] { conv(tg::ones({1, 5, 7})); }), "[nn::Conv1d] expected a [N, 2, L]"));
  CHECK(contains(thrown<tg::Error>([&] { nn::Conv1d(nn::Conv1dOptions(3, 4, 3).groups(2)); }),
                 "in_channels must be positive and divisible by groups"));
  const auto result = tg::autograd::gradcheck(
      [](const tg::autograd::variable_list& v) {
        return tg::autograd::variable_list{F::conv1d(v[0], v[1], F::Conv1dFuncOptions().bias(v[2]).padding(1).stride(2))};
      },
      {tg::randn({2, 2, 5}, tg::kDouble).requires_grad_(), tg::randn({3, 2, 3}, tg::kDouble).requires_grad_(),
       tg::randn({3}, tg::kDouble).requires_grad_()});
  CHECK_MESSAGE(result.ok, result.message);
}

TEST_CASE("nn_layers: Conv2d is F::conv2d with its parameters; fan-in bounds") {
  nn::Conv2d conv(nn::Conv2dOptions(3, 4, {3, 2}).padding(1).bias(true));
  CHECK(vec(conv->weight.sizes()) == Ints{4, 3, 3, 2});
  const double bound = 1.0 / std::sqrt(3.0 * 3 * 2);
  for (double w : elements(conv->weight)) CHECK(std::abs(w) <= bound);
  const Tensor x = tg::randn({2, 3, 5, 5});
  check_close(elements(conv(x)), elements(tg::conv2d(x, conv->weight, conv->bias, {1, 1}, {1, 1})));
  CHECK(contains(thrown<tg::Error>([&] { conv(tg::ones({2, 3, 5})); }), "[nn::Conv2d] expected a [N, 3, H, W] input"));
}

TEST_CASE("nn_layers: pooling modules; adaptive pooling with uneven windows") {
  const Tensor x = tg::arange(25, tg::kFloat).view({1, 1, 5, 5});
  nn::MaxPool2d max_pool(2);
  check_close(elements(max_pool(x)), {6, 8, 16, 18});
  nn::AvgPool2d avg_pool(nn::AvgPool2dOptions(2).stride(1));
  CHECK(vec(avg_pool(x).sizes()) == Ints{1, 1, 4, 4});
  CHECK(elements(avg_pool(x))[0] == doctest::Approx((0 + 1 + 5 + 6) / 4.0));
  // 5 -> 3: windows [0, 2), [1, 4), [3, 5) in each dimension (Note [Adaptive pooling windows]).
  nn::AdaptiveAvgPool2d adaptive(nn::AdaptiveAvgPool2dOptions({3, 3}));
  const Values xs = elements(x);
  const int starts[3] = {0, 1, 3}, ends[3] = {2, 4, 5};
  Values expected;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      double sum = 0;
      int count = 0;
      for (int r = starts[i]; r < ends[i]; ++r)
        for (int c = starts[j]; c < ends[j]; ++c) sum += xs[r * 5 + c], ++count;
      expected.push_back(sum / count);
    }
  }
  check_close(elements(adaptive(x)), expected);
  // One cell: the global average.
  check_close(elements(nn::AdaptiveAvgPool2d(1)(x)), {12});
  check_close(elements(nn::AdaptiveAvgPool1d(2)(tg::arange(4, tg::kFloat).view({1, 1, 4}))), {0.5, 2.5});
  check_close(elements(nn::MaxPool1d(2)(tg::arange(4, tg::kFloat).view({1, 1, 4}))), {1, 3});
  check_close(elements(nn::AvgPool1d(2)(tg::arange(4, tg::kFloat).view({1, 1, 4}))), {0.5, 2.5});
  CHECK(contains(thrown<tg::Error>([&] { nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({0, 2}))(x); }),
                 "output_size must be positive"));
}

TEST_CASE("nn_layers: Dropout scales kept elements while training and is the identity in eval") {
  tg::manual_seed(1);
  nn::Dropout dropout(0.25);
  const Tensor x = tg::ones({10000});
  const Values y = elements(dropout(x));
  int zeros = 0;
  for (double v : y) {
    if (v == 0) {
      ++zeros;
    } else {
      CHECK(v == doctest::Approx(1 / 0.75));
    }
  }
  CHECK(zeros > 2200);
  CHECK(zeros < 2800);
  dropout->eval();
  CHECK(elements(dropout(x)) == Values(10000, 1.0));
  CHECK(contains(thrown<tg::Error>([&] { nn::Dropout(1.5); }), "between 0 and 1, but got 1.5"));
}

TEST_CASE("nn_layers: Embedding looks rows up; the padding row is zero and gets no gradient") {
  nn::Embedding embedding(nn::EmbeddingOptions(5, 3).padding_idx(-1));
  CHECK(*embedding->options.padding_idx() == 4);
  CHECK(elements(embedding->weight.select(0, 4)) == Values(3, 0.0));
  const Tensor indices = tg::tensor(std::vector<int64_t>{1, 4, 1, 0}).view({2, 2});
  const Tensor y = embedding(indices);
  CHECK(vec(y.sizes()) == Ints{2, 2, 3});
  CHECK(elements(y.select(0, 0).select(0, 0)) == elements(embedding->weight.select(0, 1)));
  y.sum().backward();
  const Values grad = elements(embedding->weight.grad());
  check_close(Values(grad.begin() + 3, grad.begin() + 6), {2, 2, 2});  // row 1 used twice
  check_close(Values(grad.begin() + 12, grad.end()), {0, 0, 0});       // padding row
  CHECK(contains(thrown<tg::Error>([&] { nn::Embedding(nn::EmbeddingOptions(5, 3).padding_idx(5)); }),
                 "padding_idx must be within num_embeddings (5), got 5"));
}

TEST_CASE("nn_layers: LayerNorm normalises the trailing dimensions") {
  nn::LayerNorm norm(nn::LayerNormOptions({4}).eps(1e-5));
  CHECK(elements(norm->weight) == Values(4, 1.0));
  CHECK(elements(norm->bias) == Values(4, 0.0));
  const Tensor y = norm(tg::randn({3, 4}) * 5 + 2);
  for (double m : elements(y.mean({1}))) CHECK(std::abs(m) < 1e-5);
  for (double v : elements(y.var({1}, /*unbiased=*/false))) CHECK(v == doctest::Approx(1.0).epsilon(1e-3));
  nn::LayerNorm plain(nn::LayerNormOptions({4}).elementwise_affine(false));
  CHECK(plain->parameters().empty());
}

TEST_CASE("nn_layers: activations, Softmax, Flatten and Functional") {
  const Tensor x = tg::tensor({-2.0f, -0.5f, 0.0f, 1.5f});
  check_close(elements(nn::ReLU()(x)), {0, 0, 0, 1.5});
  check_close(elements(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.1))(x)), {-0.2, -0.05, 0, 1.5});
  check_close(elements(nn::ELU()(x)), {std::exp(-2.0) - 1, std::exp(-0.5) - 1, 0, 1.5});
  check_close(elements(nn::Sigmoid()(x)), elements(tg::sigmoid(x)));
  check_close(elements(nn::Tanh()(x)), elements(tg::tanh(x)));
  check_close(elements(nn::SiLU()(x)), elements(x * tg::sigmoid(x)));
  check_close(elements(nn::GELU()(x)), elements(tg::gelu(x)));
  check_close(elements(nn::Softmax(0)(x).sum()), {1});
  check_close(elements(nn::LogSoftmax(0)(x).exp().sum()), {1});
  CHECK(vec(nn::Flatten()(tg::ones({2, 3, 4})).sizes()) == Ints{2, 12});
  CHECK(vec(nn::Flatten(nn::FlattenOptions().start_dim(0))(tg::ones({2, 3, 4})).sizes()) == Ints{24});
  nn::Functional leaky(F::leaky_relu, F::LeakyReLUFuncOptions().negative_slope(0.5));
  check_close(elements(leaky(x)), {-1, -0.25, 0, 1.5});
  // In place: the input itself changes.
  Tensor y = x.clone();
  nn::ReLU(nn::ReLUOptions(true))(y);
  check_close(elements(y), {0, 0, 0, 1.5});
}

TEST_CASE("nn_layers: loss modules agree with the operators and reduce as asked") {
  const Tensor input = tg::tensor({1.0f, 2.0f, 4.0f}), target = tg::tensor({1.5f, 2.0f, 2.0f});
  check_close(elements(nn::MSELoss()(input, target)), {(0.25 + 0 + 4) / 3});
  check_close(elements(nn::MSELoss(nn::MSELossOptions(tg::kSum))(input, target)), {4.25});
  check_close(elements(nn::L1Loss()(input, target)), {2.5 / 3});
  check_close(elements(nn::L1Loss(tg::kNone)(input, target)), {0.5, 0, 2});
  const Tensor logits = tg::randn({4, 3});
  const Tensor labels = tg::tensor(std::vector<int64_t>{0, 2, 1, 2});
  check_close(elements(nn::CrossEntropyLoss()(logits, labels)), elements(tg::cross_entropy_loss(logits, labels)));
  check_close(elements(nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().reduction(tg::kSum))(logits, labels)),
              elements(tg::cross_entropy_loss(logits, labels) * 4));
  check_close(elements(nn::NLLLoss()(tg::log_softmax(logits, 1), labels)), elements(tg::cross_entropy_loss(logits, labels)));
  CHECK(contains(thrown<tg::Error>([&] { nn::L1Loss()(input, tg::ones({2})); }), "same shape"));
}

TEST_CASE("nn_layers: MultiheadAttention against a direct computation; masks; the sdpa path agrees") {
  tg::manual_seed(3);
  const int64_t embed = 4, heads = 2, target = 3, source = 5, batch = 2;
  nn::MultiheadAttention attention(nn::MultiheadAttentionOptions(embed, heads));
  CHECK(attention->named_parameters().keys() ==
        std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"});
  {
    tg::NoGradGuard no_grad;
    attention->in_proj_bias.normal_();  // zeros after reset: make the test see them
    attention->out_proj->bias.normal_();
  }
  const Tensor q = tg::randn({target, batch, embed}), k = tg::randn({source, batch, embed}), v = tg::randn({source, batch, embed});
  auto [output, weights] = attention(q, k, v);
  REQUIRE(vec(output.sizes()) == Ints{target, batch, embed});
  REQUIRE(vec(weights.sizes()) == Ints{batch, target, source});

  // Direct: per batch element and head, softmax(q_h k_h^T / sqrt(d)) v_h, heads concatenated.
  const Tensor w = attention->in_proj_weight, b = attention->in_proj_bias;
  const int64_t d = embed / heads;
  for (int64_t n = 0; n < batch; ++n) {
    std::vector<Tensor> per_head, head_weights;
    for (int64_t h = 0; h < heads; ++h) {
      auto proj = [&](const Tensor& x, int64_t part) {
        return tg::matmul(x.select(1, n), w.narrow(0, part * embed + h * d, d).t()) + b.narrow(0, part * embed + h * d, d);
      };
      const Tensor p = tg::softmax(tg::matmul(proj(q, 0), proj(k, 1).t()) / std::sqrt(static_cast<double>(d)), 1);
      head_weights.push_back(p);
      per_head.push_back(tg::matmul(p, proj(v, 2)));
    }
    const Tensor expected = attention->out_proj(tg::cat(per_head, 1));
    check_close(elements(output.select(1, n)), elements(expected), 1e-4);
    check_close(elements(weights.select(0, n)), elements((head_weights[0] + head_weights[1]) / 2), 1e-4);
  }
  // Without weights the fused scaled_dot_product_attention path gives the same output.
  auto [fused, no_weights] = attention->forward(q, k, v, {}, /*need_weights=*/false);
  CHECK(!no_weights.defined());
  check_close(elements(fused), elements(output), 1e-4);
  // A key padding mask (true = ignore) gives those keys zero weight, on both paths.
  const Tensor padding = tg::arange(source).eq(source - 1).unsqueeze(0).expand({batch, source}).contiguous();
  auto [masked, masked_weights] = attention(q, k, v, padding);
  for (double p : elements(masked_weights.select(2, source - 1))) CHECK(p == 0.0);
  for (double total : elements(masked_weights.sum({2}))) CHECK(total == doctest::Approx(1.0));
  auto [masked_fused, unused] = attention(q, k, v, padding, /*need_weights=*/false);
  check_close(elements(masked_fused), elements(masked), 1e-4);
  // A float attn_mask is added to the scores: -inf on a key removes it as the bool mask does.
  const Tensor additive = tg::zeros({target, source}).masked_fill(tg::arange(source).eq(source - 1).unsqueeze(0).expand({target, source}).contiguous(),
                                                                  -INFINITY);
  auto [with_float_mask, float_weights] = attention->forward(q, k, v, {}, true, additive);
  check_close(elements(with_float_mask), elements(masked), 1e-4);
  CHECK(contains(thrown<tg::Error>([&] { attention(q, k, v, tg::zeros({batch, 2}, tg::kBool)); }),
                 "key_padding_mask must be [2, 5], got [2, 2]"));
  CHECK(contains(thrown<tg::Error>([&] { nn::MultiheadAttention(5, 2); }), "embed_dim must be a positive multiple of num_heads"));
}
