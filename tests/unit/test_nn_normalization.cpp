// batch_norm and group_norm (operators, F:: forms, BatchNorm1d/2d and GroupNorm) against
// statistics computed here element by element; the running statistics' update; gradients by
// gradcheck; log_softmax's backward at large logits; cross_entropy's label_smoothing with
// ignore_index against the formula.
#include <cmath>
#include <sstream>

#include "autograd/gradcheck.h"
#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;
namespace nn = tg::nn;
namespace F = tg::nn::functional;

namespace {

// Per-channel mean and biased variance of an [N, C, L] tensor's values, computed directly.
struct ChannelStats {
  Values mean, var;
};

ChannelStats channel_stats(const Values& x, int64_t n, int64_t c, int64_t l) {
  ChannelStats stats{Values(static_cast<size_t>(c), 0.0), Values(static_cast<size_t>(c), 0.0)};
  for (int64_t ch = 0; ch < c; ++ch) {
    double sum = 0, squares = 0;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t i = 0; i < l; ++i) sum += x[static_cast<size_t>((b * c + ch) * l + i)];
    const double mean = sum / static_cast<double>(n * l);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t i = 0; i < l; ++i) {
        const double d = x[static_cast<size_t>((b * c + ch) * l + i)] - mean;
        squares += d * d;
      }
    stats.mean[static_cast<size_t>(ch)] = mean;
    stats.var[static_cast<size_t>(ch)] = squares / static_cast<double>(n * l);
  }
  return stats;
}

void check_close(const Values& actual, const Values& expected, double tolerance = 1e-9) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) CHECK(actual[i] == doctest::Approx(expected[i]).epsilon(tolerance));
}

}  // namespace

TEST_CASE("batch_norm: training normalizes by the batch's statistics and updates the running ones") {
  tg::manual_seed(1);
  const Tensor x = tg::randn({4, 3, 5}, tg::kDouble) * 3 + 2;
  const Tensor weight = tg::randn({3}, tg::kDouble), bias = tg::randn({3}, tg::kDouble);
  const Tensor running_mean = tg::full({3}, 0.5, tg::kDouble), running_var = tg::full({3}, 2.0, tg::kDouble);
  const double momentum = 0.25, eps = 1e-3;
  const Tensor y = tg::batch_norm(x, weight, bias, running_mean, running_var, true, momentum, eps, true);

  const Values xs = elements(x), ws = elements(weight), bs = elements(bias);
  const ChannelStats stats = channel_stats(xs, 4, 3, 5);
  Values expected;
  for (int64_t b = 0; b < 4; ++b)
    for (size_t c = 0; c < 3; ++c)
      for (int64_t i = 0; i < 5; ++i) {
        const double v = xs[static_cast<size_t>((b * 3 + static_cast<int64_t>(c)) * 5 + i)];
        expected.push_back((v - stats.mean[c]) / std::sqrt(stats.var[c] + eps) * ws[c] + bs[c]);
      }
  check_close(elements(y), expected);
  Values expected_mean, expected_var;
  for (size_t c = 0; c < 3; ++c) {
    expected_mean.push_back(0.75 * 0.5 + 0.25 * stats.mean[c]);
    expected_var.push_back(0.75 * 2.0 + 0.25 * stats.var[c] * 20.0 / 19.0);  // unbiased: n / (n - 1)
  }
  check_close(elements(running_mean), expected_mean);
  check_close(elements(running_var), expected_var);
}

TEST_CASE("batch_norm: eval normalizes by the running statistics and leaves them alone") {
  const Tensor x = tg::randn({2, 3, 2, 2}, tg::kDouble);
  const Tensor running_mean = make({0.5, -1.0, 2.0}, {3}, tg::kDouble);
  const Tensor running_var = make({1.0, 4.0, 0.25}, {3}, tg::kDouble);
  const Tensor y = tg::batch_norm(x, std::nullopt, std::nullopt, running_mean, running_var, false, 0.1, 0.0, true);
  const Values xs = elements(x), ys = elements(y), means = elements(running_mean), vars = elements(running_var);
  for (size_t i = 0; i < xs.size(); ++i) {
    const size_t c = (i / 4) % 3;
    CHECK(ys[i] == doctest::Approx((xs[i] - means[c]) / std::sqrt(vars[c])));
  }
  check_close(elements(running_mean), {0.5, -1.0, 2.0});
  check_close(elements(running_var), {1.0, 4.0, 0.25});
}

TEST_CASE("batch_norm: gradients and second derivatives by finite differences, in training and eval") {
  using tg::autograd::variable_list;
  const variable_list inputs{tg::randn({3, 2, 4}, tg::kDouble).requires_grad_(),
                             tg::randn({2}, tg::kDouble).requires_grad_(), tg::randn({2}, tg::kDouble).requires_grad_()};
  auto training = [](const variable_list& v) {
    return variable_list{tg::batch_norm(v[0], v[1], v[2], std::nullopt, std::nullopt, true, 0.1, 1e-5, true)};
  };
  auto result = tg::autograd::gradcheck(training, inputs);
  CHECK_MESSAGE(result.ok, result.message);
  result = tg::autograd::gradgradcheck(training, inputs);
  CHECK_MESSAGE(result.ok, result.message);
  const Tensor running_mean = tg::randn({2}, tg::kDouble), running_var = tg::rand({2}, tg::kDouble) + 0.5;
  auto eval = [&](const variable_list& v) {
    return variable_list{tg::batch_norm(v[0], v[1], v[2], running_mean, running_var, false, 0.1, 1e-5, true)};
  };
  result = tg::autograd::gradcheck(eval, inputs);
  CHECK_MESSAGE(result.ok, result.message);
}

TEST_CASE("batch_norm: bad inputs raise errors that say what was expected") {
  const Tensor x = tg::randn({4, 3});
  CHECK(contains(thrown<tg::Error>([&] { tg::batch_norm(tg::randn({3}), {}, {}, {}, {}, true, 0.1, 1e-5, true); }),
                 "[batch_norm] expected an input of shape [N, C, *]"));
  CHECK(contains(thrown<tg::Error>([&] { tg::batch_norm(x, tg::ones({4}), {}, {}, {}, true, 0.1, 1e-5, true); }),
                 "[batch_norm] expected weight of shape [3]"));
  CHECK(contains(
      thrown<tg::Error>([&] { tg::batch_norm(tg::randn({1, 3}), {}, {}, {}, {}, true, 0.1, 1e-5, true); }),
      "expected more than 1 value per channel when training"));
  CHECK(contains(thrown<tg::Error>([&] { tg::batch_norm(x, {}, {}, {}, {}, false, 0.1, 1e-5, true); }),
                 "must be defined in evaluation mode"));
  CHECK(contains(thrown<tg::Error>([&] { tg::batch_norm(x, {}, {}, tg::zeros({3}), {}, true, 0.1, 1e-5, true); }),
                 "running_mean and running_var must be given together"));
}

TEST_CASE("nn::BatchNorm2d: parameters, buffers, momentum and cumulative averages, eval mode") {
  nn::BatchNorm2d bn(3);
  CHECK(bn->named_parameters().keys() == std::vector<std::string>{"weight", "bias"});
  CHECK(bn->named_buffers().keys() == std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"});
  CHECK(bn->num_batches_tracked.scalar_type() == tg::kLong);
  check_close(elements(bn->running_var), {1, 1, 1});

  const Tensor a = tg::randn({4, 3, 2, 2}), b = tg::randn({4, 3, 2, 2}) + 1;
  bn(a);
  CHECK(bn->num_batches_tracked.item<int64_t>() == 1);
  const Values mean_a = elements(a.mean({0, 2, 3}));
  Values expected;
  for (double m : mean_a) expected.push_back(0.1 * m);
  check_close(elements(bn->running_mean), expected, 1e-5);

  // momentum = None: the running mean is the plain average of the batches' means.
  nn::BatchNorm2d cumulative(nn::BatchNormOptions(3).momentum(std::nullopt));
  cumulative(a);
  cumulative(b);
  check_close(elements(cumulative->running_mean), elements((a.mean({0, 2, 3}) + b.mean({0, 2, 3})) / 2), 1e-5);

  bn->eval();
  const Tensor y = bn(b);
  CHECK(bn->num_batches_tracked.item<int64_t>() == 1);
  const Tensor expected_y = (b - bn->running_mean.view({1, 3, 1, 1})) / (bn->running_var.view({1, 3, 1, 1}) + 1e-5).sqrt();
  check_close(elements(y), elements(expected_y), 1e-5);

  std::ostringstream printed;
  printed << *bn;
  CHECK(printed.str() == "tg::nn::BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)");
  CHECK(contains(thrown<tg::Error>([&] { bn(tg::randn({4, 3, 2})); }), "[nn::BatchNorm2d] expected 4D input (got 3D input)"));
  CHECK(contains(thrown<tg::Error>([&] { bn(tg::randn({4, 2, 2, 2})); }), "expected 3 channels"));
}

TEST_CASE("nn::BatchNorm1d: 2-d and 3-d inputs; without running statistics eval uses the batch's") {
  nn::BatchNorm1d bn(nn::BatchNormOptions(2).affine(false).track_running_stats(false));
  CHECK(bn->parameters().empty());
  CHECK(bn->buffers().empty());
  bn->eval();
  const Tensor x = tg::randn({6, 2}, tg::kFloat) * 4 + 3;
  const Tensor y = bn(x);
  for (double v : elements(y.mean({0}))) CHECK(std::abs(v) < 1e-5);
  for (double v : elements(y.var({0}, false))) CHECK(v == doctest::Approx(1.0).epsilon(1e-3));
  CHECK(vec(bn(tg::randn({6, 2, 5})).sizes()) == Ints{6, 2, 5});
  CHECK(contains(thrown<tg::Error>([&] { bn(tg::randn({6, 2, 5, 1})); }), "expected 2D or 3D input (got 4D input)"));
  // A module trained and cloned keeps its statistics.
  nn::BatchNorm1d tracked(2);
  tracked(x);
  auto copy = std::dynamic_pointer_cast<nn::BatchNorm1dImpl>(tracked->clone());
  check_close(elements(copy->running_mean), elements(tracked->running_mean));
}

TEST_CASE("F::batch_norm: LibTorch's argument order (input, running_mean, running_var, options)") {
  const Tensor x = tg::randn({5, 2}, tg::kDouble);
  const Tensor mean = tg::zeros({2}, tg::kDouble), var = tg::ones({2}, tg::kDouble);
  const Tensor y = F::batch_norm(x, mean, var, F::BatchNormFuncOptions().training(true).momentum(0.5));
  check_close(elements(mean), elements(x.mean({0}) * 0.5));
  check_close(elements(y), elements((x - x.mean({0}, true)) / (x.var({0}, false, true) + 1e-5).sqrt()));
  CHECK(contains(thrown<tg::Error>([&] { F::batch_norm(x, mean, var, F::BatchNormFuncOptions().momentum(std::nullopt)); }),
                 "expected a momentum"));
}

TEST_CASE("group_norm: each group of each sample normalized over its channels and positions") {
  const Tensor x = tg::randn({2, 4, 3}, tg::kDouble) * 2 + 1;
  const Tensor weight = tg::randn({4}, tg::kDouble), bias = tg::randn({4}, tg::kDouble);
  const Tensor y = tg::group_norm(x, 2, weight, bias, 1e-5);
  const Values xs = elements(x), ys = elements(y), ws = elements(weight), bs = elements(bias);
  for (size_t n = 0; n < 2; ++n)
    for (size_t g = 0; g < 2; ++g) {
      // Group g of sample n: channels 2g and 2g + 1, 6 contiguous values.
      const size_t start = n * 12 + g * 6;
      double mean = 0, var = 0;
      for (size_t i = 0; i < 6; ++i) mean += xs[start + i] / 6;
      for (size_t i = 0; i < 6; ++i) var += (xs[start + i] - mean) * (xs[start + i] - mean) / 6;
      for (size_t i = 0; i < 6; ++i) {
        const size_t c = g * 2 + i / 3;
        CHECK(ys[start + i] == doctest::Approx((xs[start + i] - mean) / std::sqrt(var + 1e-5) * ws[c] + bs[c]));
      }
    }
  using tg::autograd::variable_list;
  const auto result = tg::autograd::gradcheck(
      [](const variable_list& v) { return variable_list{tg::group_norm(v[0], 3, v[1], v[2], 1e-5)}; },
      {tg::randn({2, 6, 2}, tg::kDouble).requires_grad_(), tg::randn({6}, tg::kDouble).requires_grad_(),
       tg::randn({6}, tg::kDouble).requires_grad_()});
  CHECK_MESSAGE(result.ok, result.message);
  CHECK(contains(thrown<tg::Error>([&] { tg::group_norm(x, 3); }),
                 "[group_norm] expected the number of channels (4) to be divisible by num_groups, got num_groups=3"));
  CHECK(contains(thrown<tg::Error>([&] { tg::group_norm(x, 2, tg::ones({3})); }), "expected weight of shape [4]"));
}

TEST_CASE("nn::GroupNorm: affine parameters, printing, equal in training and eval") {
  nn::GroupNorm gn(2, 4);
  CHECK(gn->named_parameters().keys() == std::vector<std::string>{"weight", "bias"});
  const Tensor x = tg::randn({3, 4, 5});
  const Tensor train_y = gn(x);
  gn->eval();
  check_close(elements(gn(x)), elements(train_y));
  check_close(elements(train_y), elements(F::group_norm(x, F::GroupNormFuncOptions(2))), 1e-6);
  std::ostringstream printed;
  printed << *gn;
  CHECK(printed.str() == "tg::nn::GroupNorm(2, 4, eps=1e-05, affine=true)");
  CHECK(contains(thrown<tg::Error>([] { nn::GroupNorm(3, 4); }), "[nn::GroupNorm] expected num_channels (4)"));
}

TEST_CASE("log_softmax: the backward stays finite and exact at large logits") {
  // exp(1000) overflows; the backward must use the saved log-probabilities, not exp(x).
  for (tg::ScalarType dtype : {tg::kFloat, tg::kDouble}) {
    const Tensor x = make({1000.0, 0.0, -1000.0, 500.0, 999.0, 1000.0}, {2, 3}, dtype).requires_grad_();
    const Tensor grad = make({1.0, -2.0, 0.5, 0.25, 3.0, -1.0}, {2, 3}, dtype);
    const double tolerance = dtype == tg::kFloat ? 1e-4 : 1e-10;
    tg::log_softmax(x, 1).backward(grad);
    // d/dx log_softmax = g - softmax(x) * sum(g), softmax computed here stably in double.
    const Values xs = elements(x), gs = elements(grad), grads = elements(x.grad());
    for (size_t row = 0; row < 2; ++row) {
      double largest = -INFINITY, total = 0, grad_sum = 0;
      for (size_t j = 0; j < 3; ++j) largest = std::max(largest, xs[row * 3 + j]);
      for (size_t j = 0; j < 3; ++j) total += std::exp(xs[row * 3 + j] - largest);
      for (size_t j = 0; j < 3; ++j) grad_sum += gs[row * 3 + j];
      for (size_t j = 0; j < 3; ++j) {
        const double softmax = std::exp(xs[row * 3 + j] - largest) / total;
        CHECK(std::isfinite(grads[row * 3 + j]));
        CHECK(grads[row * 3 + j] == doctest::Approx(gs[row * 3 + j] - softmax * grad_sum).epsilon(tolerance));
      }
    }
  }
}

TEST_CASE("cross_entropy: label_smoothing with ignore_index, against the formula") {
  const Tensor logits = tg::randn({5, 4}, tg::kDouble);
  const Tensor target = make({0, 3, -100, 1, 2}, {5}, tg::kLong);
  const double smoothing = 0.2;
  const Tensor loss = tg::cross_entropy_loss(logits, target, std::nullopt, tg::Reduction::Mean, -100, smoothing);
  const Values log_probs = elements(tg::log_softmax(logits, 1)), targets = elements(target);
  double total = 0;
  int counted = 0;
  for (size_t n = 0; n < 5; ++n) {
    if (targets[n] == -100) continue;  // ignored: adds nothing, counts nothing
    double uniform = 0;
    for (size_t c = 0; c < 4; ++c) uniform -= log_probs[n * 4 + c] / 4;
    total += (1 - smoothing) * -log_probs[n * 4 + static_cast<size_t>(targets[n])] + smoothing * uniform;
    ++counted;
  }
  CHECK(loss.item<double>() == doctest::Approx(total / counted));
  // nll_loss's ignore_index: the ignored row gets no gradient.
  const Tensor x = logits.clone().requires_grad_();
  tg::nll_loss(tg::log_softmax(x, 1), target, std::nullopt, tg::Reduction::Sum, -100).backward();
  for (size_t c = 0; c < 4; ++c) CHECK(elements(x.grad())[2 * 4 + c] == 0.0);
}
