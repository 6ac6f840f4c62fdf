// tg::nn::init and nn::functional's option handling: the distributions' bounds and moments,
// orthogonality, gains and fans, no autograd history, and the errors for bad tensors.
#include <cmath>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;
namespace init = tg::nn::init;
namespace F = tg::nn::functional;

namespace {

double mean_of(const Values& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double std_of(const Values& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size()));
}

}  // namespace

TEST_CASE("nn_init: gains and fans follow PyTorch's table") {
  CHECK(init::calculate_gain(tg::kLinear) == 1.0);
  CHECK(init::calculate_gain(tg::kSigmoid) == 1.0);
  CHECK(init::calculate_gain(tg::kTanh) == doctest::Approx(5.0 / 3));
  CHECK(init::calculate_gain(tg::kReLU) == doctest::Approx(std::sqrt(2.0)));
  CHECK(init::calculate_gain(tg::kLeakyReLU, 0.2) == doctest::Approx(std::sqrt(2.0 / 1.04)));
  auto [fan_in, fan_out] = init::_calculate_fan_in_and_fan_out(tg::empty({8, 3, 5, 5}));
  CHECK(fan_in == 75);
  CHECK(fan_out == 200);
  CHECK(contains(thrown<tg::Error>([&] { init::_calculate_fan_in_and_fan_out(tg::empty({4})); }),
                 "fewer than 2 dimensions; got shape [4]"));
}

TEST_CASE("nn_init: uniform, xavier and kaiming bounds and moments") {
  tg::manual_seed(0);
  const Values u = elements(init::uniform_(tg::empty({20000}), -2, 3));
  for (double x : u) CHECK((x >= -2 && x <= 3));
  CHECK(mean_of(u) == doctest::Approx(0.5).epsilon(0.05));
  const Values n = elements(init::normal_(tg::empty({20000}), 1, 2));
  CHECK(mean_of(n) == doctest::Approx(1).epsilon(0.05));
  CHECK(std_of(n) == doctest::Approx(2).epsilon(0.03));

  const double xavier_bound = std::sqrt(6.0 / (200 + 100));
  const Values xu = elements(init::xavier_uniform_(tg::empty({200, 100})));
  for (double x : xu) CHECK(std::abs(x) <= xavier_bound);
  CHECK(std_of(xu) == doctest::Approx(xavier_bound / std::sqrt(3.0)).epsilon(0.03));
  CHECK(std_of(elements(init::xavier_normal_(tg::empty({200, 100}), 2.0))) ==
        doctest::Approx(2.0 * std::sqrt(2.0 / 300)).epsilon(0.03));

  const Values ku = elements(init::kaiming_uniform_(tg::empty({200, 100}), 0, tg::kFanIn, tg::kReLU));
  const double kaiming_bound = std::sqrt(2.0) * std::sqrt(3.0 / 100);
  for (double x : ku) CHECK(std::abs(x) <= kaiming_bound);
  CHECK(std_of(elements(init::kaiming_normal_(tg::empty({200, 100}), 0, tg::kFanOut, tg::kReLU))) ==
        doctest::Approx(std::sqrt(2.0 / 200)).epsilon(0.03));
}

TEST_CASE("nn_init: constant, ones, zeros, eye") {
  CHECK(elements(init::constant_(tg::empty({2, 2}), 0.25)) == Values(4, 0.25));
  CHECK(elements(init::ones_(tg::empty({3}))) == Values(3, 1.0));
  CHECK(elements(init::zeros_(tg::empty({3}))) == Values(3, 0.0));
  CHECK(elements(init::eye_(tg::empty({2, 3}))) == Values{1, 0, 0, 0, 1, 0});
  CHECK(contains(thrown<tg::Error>([&] { init::eye_(tg::empty({2})); }), "only tensors with 2 dimensions"));
  CHECK(contains(thrown<tg::Error>([&] { init::uniform_(tg::empty({2}), 1, 0); }), "expected low <= high"));
  CHECK(contains(thrown<tg::Error>([&] { init::normal_(Tensor()); }), "expected a defined tensor"));
}

TEST_CASE("nn_init: orthogonal_ gives orthonormal rows or columns, times the gain") {
  for (auto shape : {Ints{3, 7}, Ints{7, 3}, Ints{4, 4}}) {
    const Tensor w = init::orthogonal_(tg::empty(shape, tg::kDouble), 2.0);
    const bool wide = shape[0] <= shape[1];
    const Tensor gram = wide ? tg::matmul(w, w.t()) : tg::matmul(w.t(), w);
    const int64_t k = std::min(shape[0], shape[1]);
    const Values g = elements(gram);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < k; ++j) CHECK(std::abs(g[i * k + j] - (i == j ? 4.0 : 0.0)) < 1e-9);
  }
  // More than two dimensions: flattened to [size(0), rest].
  const Tensor conv = init::orthogonal_(tg::empty({2, 3, 2}));
  const Values g = elements(tg::matmul(conv.view({2, 6}), conv.view({2, 6}).t()));
  CHECK(g[0] == doctest::Approx(1.0).epsilon(1e-5));
  CHECK(std::abs(g[1]) < 1e-5);
  CHECK(std::abs(g[2]) < 1e-5);
  CHECK(g[3] == doctest::Approx(1.0).epsilon(1e-5));
}

TEST_CASE("nn_init: initialisers leave no autograd history on parameters") {
  Tensor p = tg::empty({3, 3}).requires_grad_();
  init::kaiming_uniform_(p);
  CHECK(p.is_leaf());
  CHECK(p.requires_grad());
  init::orthogonal_(p);
  CHECK(p.is_leaf());
}

TEST_CASE("nn_functional: options structs reach the operators") {
  const Tensor x = tg::tensor({-1.0f, 2.0f});
  Tensor y = x.clone();
  F::relu(y, F::ReLUFuncOptions().inplace(true));
  CHECK(elements(y) == Values{0, 2});
  CHECK(elements(F::dropout(x, F::DropoutFuncOptions().p(0.5).training(false))) == elements(x));
  CHECK(contains(thrown<tg::Error>([&] { F::dropout(x, F::DropoutFuncOptions().p(-0.1)); }), "between 0 and 1"));
  const Tensor logits = tg::randn({3, 4});
  const Tensor labels = tg::tensor(std::vector<int64_t>{3, 0, 1});
  CHECK(elements(F::cross_entropy(logits, labels, F::CrossEntropyFuncOptions().reduction(tg::kNone))) ==
        elements(tg::cross_entropy_loss(logits, labels, std::nullopt, tg::Reduction::None)));
  CHECK(elements(F::softmax(logits, F::SoftmaxFuncOptions(1))) == elements(tg::softmax(logits, 1)));
  CHECK(vec(F::one_hot(labels, 4).sizes()) == Ints{3, 4});
  const Tensor table = tg::randn({5, 2});
  CHECK(contains(thrown<tg::Error>([&] { F::embedding(labels, table, F::EmbeddingFuncOptions().padding_idx(7)); }),
                 "padding_idx must be within [-5, 5), got 7"));
  CHECK(contains(thrown<tg::Error>([&] { F::embedding(labels, table, F::EmbeddingFuncOptions().max_norm(1.0)); }),
                 "max_norm is not supported yet"));
  CHECK(elements(F::layer_norm(logits, F::LayerNormFuncOptions({4}))) == elements(tg::layer_norm(logits, {4})));
}
