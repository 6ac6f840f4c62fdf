// Checks of the neural-network operators that the generated conformance tests do not make:
// values against hand computations (cross_entropy with weights, ignored targets and label
// smoothing, softmax at extreme values, layer_norm, var), the seeded reproducibility of
// dropout, gradients through Tensor[] inputs, views from split, and the errors for bad
// targets, shapes and dims.
#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;

namespace {

// -log_softmax(row)[k], computed directly.
double nll_of(const Values& row, size_t k) {
  double total = 0;
  for (double v : row) total += std::exp(v);
  return std::log(total) - row[k];
}

void check_close(const Values& actual, const Values& expected, double tolerance = 1e-6) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) CHECK(actual[i] == doctest::Approx(expected[i]).epsilon(tolerance));
}

}  // namespace

TEST_CASE("ops_nn: cross_entropy against a hand computation") {
  const std::vector<Values> rows = {{1, 2, 3}, {1, 0, -1}, {0.5, -2, 4}, {2, 2, 2}};
  const Tensor logits = make({1, 2, 3, 1, 0, -1, 0.5, -2, 4, 2, 2, 2}, {4, 3}, tg::kDouble);
  const Tensor target = make({2, 0, 1, 1}, {4}, tg::kLong);
  const Values w = {0.5, 1.0, 2.0};
  const Tensor weight = make(w, {3}, tg::kDouble);

  Values per_row;
  for (size_t i = 0; i < rows.size(); ++i) per_row.push_back(nll_of(rows[i], static_cast<size_t>(values(target)[i])));
  check_close(values(tg::cross_entropy_loss(logits, target, std::nullopt, tg::Reduction::None)), per_row);
  const double mean = (per_row[0] + per_row[1] + per_row[2] + per_row[3]) / 4;
  check_close(values(tg::cross_entropy_loss(logits, target)), {mean});

  // Weighted mean divides by the weights of the targets; ignored targets (class 1 here) drop out.
  const double weighted = w[2] * per_row[0] + w[0] * per_row[1];
  check_close(values(tg::cross_entropy_loss(logits, target, weight, tg::Reduction::Mean, /*ignore_index=*/1)),
              {weighted / (w[2] + w[0])});
  check_close(values(tg::cross_entropy_loss(logits, target, weight, tg::Reduction::Sum, 1)), {weighted});

  // Label smoothing s: (1 - s) nll + s / C * sum_c -log_softmax_c, per row, then the mean.
  const double s = 0.3;
  double smoothed = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    double uniform = 0;
    for (size_t c = 0; c < 3; ++c) uniform += nll_of(rows[i], c);
    smoothed += (1 - s) * per_row[i] + s / 3 * uniform;
  }
  check_close(values(tg::cross_entropy_loss(logits, target, std::nullopt, tg::Reduction::Mean, -100, s)),
              {smoothed / 4});

  // Class probabilities: a one-hot target gives the index loss.
  const Tensor one_hot = make({0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0}, {4, 3}, tg::kDouble);
  check_close(values(tg::cross_entropy_loss(logits, one_hot, std::nullopt, tg::Reduction::None)), per_row);

  // [N, C, d] inputs: the class dim is dim 1.
  const Tensor spatial = logits.view({2, 2, 3}).transpose(1, 2);  // [2, 3, 2], rows of the classes
  const Tensor spatial_target = target.view({2, 2});
  check_close(values(tg::cross_entropy_loss(spatial, spatial_target, std::nullopt, tg::Reduction::None)), per_row);
}

TEST_CASE("ops_nn: nll_loss and cross_entropy reject bad targets and shapes") {
  const Tensor input = tg::zeros({4, 3});
  CHECK(contains(thrown<tg::IndexError>([&] { tg::nll_loss(input, make({0, 1, 3, 2}, {4}, tg::kLong)); }),
                 "[nll_loss] target 3 is out of bounds"));
  CHECK(contains(thrown<tg::IndexError>([&] { tg::nll_loss(input, make({0, -1, 1, 2}, {4}, tg::kLong)); }),
                 "target -1 is out of bounds"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::nll_loss(input, make({0, 1}, {2}, tg::kLong)); }),
                 "expected input batch size (4) to match target batch size (2)"));
  CHECK(contains(thrown<tg::TypeError>([&] { tg::nll_loss(input, tg::zeros({4})); }),
                 "expected target of class indices of dtype int64, got float32"));
  const Tensor target = make({0, 1, 1, 2}, {4}, tg::kLong);
  CHECK(contains(thrown<tg::ValueError>([&] { tg::nll_loss(input, target, tg::ones({4})); }),
                 "weight tensor should be defined either for all 3 classes"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::nll_loss(input, make({0, 1, 1, 2}, {4}, tg::kLong), {}, 3); }),
                 "reduction must be 0 (None), 1 (Mean) or 2 (Sum), got 3"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::cross_entropy_loss(input, make({0, 1, 1, 2}, {4}, tg::kLong), {},
                                                                     tg::Reduction::Mean, -100, 1.5); }),
                 "label_smoothing must be between 0.0 and 1.0, got 1.5"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::nll_loss(tg::zeros({2, 3, 4}), make({0, 1}, {2}, tg::kLong)); }),
                 "expected target of shape [2, 4] for input of shape [2, 3, 4], got [2]"));
  // Every target ignored: the mean over no targets is NaN, as in PyTorch.
  CHECK(std::isnan(values(tg::nll_loss(input, make({1, 1, 1, 1}, {4}, tg::kLong), {}, tg::Reduction::Mean, 1))[0]));
}

TEST_CASE("ops_nn: softmax and log_softmax are stable at extreme values") {
  const Tensor x = make({1000, 1001, 1002, -1000, -1000, -1000}, {2, 3}, tg::kDouble);
  const double e1 = std::exp(-1.0), e2 = std::exp(-2.0), total = 1 + e1 + e2;
  check_close(values(tg::softmax(x, 1)), {e2 / total, e1 / total, 1 / total, 1.0 / 3, 1.0 / 3, 1.0 / 3});
  check_close(values(tg::log_softmax(x, -1)),
              {-2 - std::log(total), -1 - std::log(total), -std::log(total), -std::log(3.0), -std::log(3.0),
               -std::log(3.0)});
  // Along dim 0 of a non-contiguous input, and in float with a dtype argument.
  const Tensor xt = x.t();  // [3, 2]
  check_close(values(tg::softmax(xt, 0)), values(tg::softmax(x, 1).t()));
  CHECK(tg::softmax(make({1, 2}, {2}, tg::kFloat), 0, tg::kDouble).scalar_type() == tg::kDouble);
  CHECK(contains(thrown<tg::IndexError>([&] { tg::softmax(x, 2); }), "dimension out of range"));
  CHECK(contains(thrown<tg::NotImplementedError>([&] { tg::softmax(make({1, 2}, {2}, tg::kLong), 0); }),
                 "not implemented for 'int64'"));
}

TEST_CASE("ops_nn: layer_norm against a hand computation") {
  const Values row = {1, 2, 4, 9};
  const double mean = 4, var = (9 + 4 + 0 + 25) / 4.0, eps = 1e-5;
  const Tensor x = make(row, {1, 4}, tg::kDouble);
  const Tensor weight = make({1, 2, 3, 4}, {4}, tg::kDouble), bias = make({0, 1, 0, -1}, {4}, tg::kDouble);
  Values expected;
  for (size_t j = 0; j < 4; ++j) {
    expected.push_back((row[j] - mean) / std::sqrt(var + eps) * values(weight)[j] + values(bias)[j]);
  }
  check_close(values(tg::layer_norm(x, {4}, weight, bias)), expected);
  auto [out, saved_mean, rstd] = tg::native_layer_norm(x, {4}, weight, bias, eps);
  CHECK(shape(saved_mean) == Ints{1, 1});
  check_close(values(saved_mean), {mean});
  check_close(values(rstd), {1 / std::sqrt(var + eps)});
  CHECK(contains(thrown<tg::ValueError>([&] { tg::layer_norm(x, {3}); }),
                 "given normalized_shape=[3], expected input with shape [*[3]], but got input of size [1, 4]"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::layer_norm(x, {4}, tg::ones({3})); }),
                 "expected weight to be of same shape as normalized_shape"));
}

TEST_CASE("ops_nn: dropout is reproducible under tg::manual_seed") {
  const Tensor x = tg::ones({100, 100});
  tg::manual_seed(42);
  const Tensor a = tg::dropout(x, 0.3, true);
  tg::manual_seed(42);
  const Tensor b = tg::dropout(x, 0.3, true);
  CHECK(values(a) == values(b));
  const Tensor c = tg::dropout(x, 0.3, true);  // the generator moved on
  CHECK(values(a) != values(c));

  // Kept elements are scaled by 1 / (1 - p); about 1 - p of them are kept.
  size_t kept = 0;
  for (double v : values(a)) {
    if (v != 0) {
      CHECK(v == doctest::Approx(1 / 0.7));
      ++kept;
    }
  }
  CHECK(static_cast<double>(kept) / 10000 == doctest::Approx(0.7).epsilon(0.05));

  // The mask native_dropout returns is the one backward uses.
  tg::manual_seed(7);
  const Tensor leaf = tg::ones({50}).requires_grad_();
  auto [out, mask] = tg::native_dropout(leaf, 0.5, true);
  out.sum().backward();
  CHECK(values(leaf.grad()) == values(mask.to(tg::kFloat) * 2));

  CHECK(values(tg::dropout(x, 0.3, false)) == values(x));
  CHECK(values(tg::dropout(x, 1.0, true)) == values(tg::zeros({100, 100})));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::dropout(x, 1.5, true); }),
                 "dropout probability has to be between 0 and 1, but got 1.5"));
}

TEST_CASE("ops_nn: embedding rows, padding_idx and frequency scaling") {
  const Tensor weight = tg::arange(10, tg::kDouble).view({5, 2}).requires_grad_();
  const Tensor indices = make({4, 0, 4, 2}, {2, 2}, tg::kLong);
  const Tensor rows = tg::embedding(weight, indices, /*padding_idx=*/0, /*scale_grad_by_freq=*/true);
  CHECK(shape(rows) == Ints{2, 2, 2});
  CHECK(values(rows) == Values{8, 9, 0, 1, 8, 9, 4, 5});
  rows.sum().backward();
  // Row 4 occurs twice and is scaled by 1/2; row 0 is padding and gets nothing.
  CHECK(values(weight.grad()) == Values{0, 0, 0, 0, 1, 1, 0, 0, 1, 1});
  CHECK(contains(thrown<tg::IndexError>([&] { tg::embedding(weight, make({5}, {1}, tg::kLong)); }),
                 "index 5 is out of range for a dim of size 5"));
  CHECK(contains(thrown<tg::TypeError>([&] { tg::embedding(weight, tg::zeros({2})); }),
                 "expected indices of dtype int64 or int32, got float32"));
}

TEST_CASE("ops_nn: gelu and silu values") {
  const Tensor x = make({-1, 0, 2}, {3}, tg::kDouble);
  const double phi_minus1 = 0.15865525393145707, phi_2 = 0.9772498680518208;  // Phi(-1), Phi(2)
  check_close(values(tg::gelu(x)), {-phi_minus1, 0, 2 * phi_2});
  const double u = 0.7978845608028654 * (2 + 0.044715 * 8);
  CHECK(values(tg::gelu(x, "tanh"))[2] == doctest::Approx(0.5 * 2 * (1 + std::tanh(u))));
  check_close(values(tg::silu(x)), {-1 / (1 + std::exp(1.0)), 0, 2 / (1 + std::exp(-2.0))});
  CHECK(contains(thrown<tg::ValueError>([&] { tg::gelu(x, "fast"); }),
                 "approximate argument must be either 'none' or 'tanh', got 'fast'"));
}

TEST_CASE("ops_nn: cat promotes, skips legacy empty tensors and sends one gradient per input") {
  const Tensor a = make({1, 2, 3, 4}, {2, 2}, tg::kFloat);
  const Tensor b = make({5, 6}, {2, 1}, tg::kLong);
  const Tensor joined = tg::cat({a, b, tg::empty({0})}, 1);
  CHECK(joined.scalar_type() == tg::kFloat);
  CHECK(shape(joined) == Ints{2, 3});
  CHECK(values(joined) == Values{1, 2, 5, 3, 4, 6});
  CHECK(contains(thrown<tg::ValueError>([&] { tg::cat({a, tg::zeros({3, 2})}, 1); }),
                 "[cat] sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for "
                 "tensor number 1 in the list"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::cat({a, tg::zeros({})}); }),
                 "zero-dimensional tensor (at position 1) cannot be concatenated"));
  // An empty list has no tensor to dispatch on: the dispatcher says so.
  CHECK(contains(thrown<tg::Error>([&] { tg::cat(std::vector<Tensor>{}); }), "[tg::cat] nothing to dispatch on"));

  // Gradients flow to the elements that require grad, each of its own shape.
  const Tensor x = tg::ones({2, 2}).requires_grad_(), y = tg::ones({1, 2}).requires_grad_();
  const Tensor weights = make({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  (tg::cat({x, tg::zeros({1, 2}), y}, 0) * weights).sum().backward();
  CHECK(values(x.grad()) == Values{1, 2, 3, 4});
  CHECK(values(y.grad()) == Values{7, 8});
  const Tensor s = tg::ones({3}).requires_grad_();
  (tg::stack({s, s * 2}, 1) * make({1, 2, 3, 4, 5, 6}, {3, 2})).sum().backward();
  CHECK(values(s.grad()) == Values{1 + 2 * 2, 3 + 4 * 2, 5 + 6 * 2});
}

TEST_CASE("ops_nn: split and chunk give views of self") {
  const Tensor x = tg::arange(10, tg::kFloat).view({5, 2});
  const std::vector<Tensor> pieces = x.split(2);
  REQUIRE(pieces.size() == 3);
  CHECK(shape(pieces[2]) == Ints{1, 2});
  pieces[1].fill_(-1);  // writes through to x
  CHECK(values(x) == Values{0, 1, 2, 3, -1, -1, -1, -1, 8, 9});
  CHECK(x.chunk(4).size() == 3);  // pieces of ceil(5 / 4) = 2
  CHECK(contains(thrown<tg::ValueError>([&] { x.split_with_sizes({2, 2}); }),
                 "expects split_sizes to sum exactly to 5"));
}

TEST_CASE("ops_nn: topk orders NaN first and keeps ties in index order") {
  const double nan = std::nan("");
  const Tensor x = make({3, nan, 1, 3, 2}, {5}, tg::kDouble);
  auto [values_top, indices_top] = tg::topk(x, 3);
  CHECK(std::isnan(values(values_top)[0]));
  CHECK(values(indices_top) == Values{1, 0, 3});
  auto [values_low, indices_low] = x.topk(2, 0, /*largest=*/false);
  CHECK(values(values_low) == Values{1, 2});
  CHECK(values(indices_low) == Values{2, 4});
  CHECK(contains(thrown<tg::IndexError>([&] { tg::topk(x, 6); }), "selected index k out of range"));
}

namespace {

// topk by its definition: each slice along `dim` stably sorted (NaN above every number), the
// first k kept. Returns the values and the indices, in the output's layout.
std::pair<Values, Values> topk_by_stable_sort(const Tensor& x, int64_t k, int64_t dim, bool largest) {
  const Tensor moved = x.transpose(dim, -1).contiguous();
  const Values all = values(moved);
  const int64_t size = moved.sizes().back();
  const auto before = [largest](double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return largest ? std::isnan(a) && !std::isnan(b) : !std::isnan(a) && std::isnan(b);
    return largest ? a > b : a < b;
  };
  Values top_values, top_indices;
  for (size_t start = 0; start < all.size(); start += static_cast<size_t>(size)) {
    std::vector<int64_t> order(static_cast<size_t>(size));
    for (int64_t j = 0; j < size; ++j) order[j] = j;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return before(all[start + a], all[start + b]); });
    for (int64_t j = 0; j < k; ++j) {
      top_values.push_back(all[start + order[j]]);
      top_indices.push_back(static_cast<double>(order[j]));
    }
  }
  // Back from [..., k] to the output's layout (k at `dim`).
  Ints moved_sizes = shape(moved);
  moved_sizes.back() = k;
  const auto relayout = [&](const Values& v) {
    return values(make(v, moved_sizes, tg::kDouble).transpose(dim, -1).contiguous());
  };
  return {relayout(top_values), relayout(top_indices)};
}

bool same_values(const Values& a, const Values& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("ops_nn: topk equals a stable sort's first k, for small and large k, any dim and layout") {
  // Few distinct values (many ties) and some NaN; k on both sides of the threshold path's
  // limit (32), up to the whole slice; a middle dim (strided slices) and a transposed input.
  std::mt19937 engine(20);
  const auto random_values = [&](int64_t n, bool with_nan) {
    Values v(static_cast<size_t>(n));
    for (double& x : v) {
      x = static_cast<double>(engine() % 7) - 3;
      if (with_nan && engine() % 16 == 0) x = std::nan("");
    }
    return v;
  };
  struct Case {
    Ints sizes;
    int64_t dim;
    bool transposed;
  };
  const std::vector<Case> cases = {{{6, 50}, -1, false}, {{50, 6}, 0, false}, {{3, 40, 5}, 1, false},
                                   {{50, 6}, -1, true}, {{70}, 0, false}};
  for (const Case& c : cases) {
    for (tg::ScalarType dtype : {tg::kFloat, tg::kDouble, tg::kHalf, tg::kInt}) {
      const bool floating = dtype != tg::kInt;
      int64_t n = 1;
      for (int64_t s : c.sizes) n *= s;
      Tensor x = make(random_values(n, floating), c.sizes, tg::kDouble).to(dtype);
      if (c.transposed) x = x.t();  // sizes {6, 50}, not contiguous
      const int64_t size = x.sizes()[c.dim < 0 ? x.dim() + c.dim : c.dim];
      for (int64_t k : {int64_t{1}, int64_t{5}, int64_t{32}, int64_t{33}, size}) {
        if (k > size) continue;
        for (bool largest : {true, false}) {
          for (bool sorted : {true, false}) {
            CAPTURE(c.sizes);
            CAPTURE(c.dim);
            CAPTURE(dtype);
            CAPTURE(k);
            CAPTURE(largest);
            const auto [top, at] = tg::topk(x, k, c.dim, largest, sorted);
            const auto [expected_values, expected_indices] = topk_by_stable_sort(x, k, c.dim, largest);
            CHECK(same_values(values(top), expected_values));
            CHECK(values(at) == expected_indices);
          }
        }
      }
    }
  }
  // Rows split over two threads give the same.
  const Tensor wide = make(random_values(600 * 100, true), {600, 100}, tg::kFloat);
  const auto [one_thread, one_thread_at] = tg::topk(wide, 3);
  const int saved_threads = tg::get_num_threads();
  tg::set_num_threads(2);
  const auto [two_threads, two_threads_at] = tg::topk(wide, 3);
  tg::set_num_threads(saved_threads);
  CHECK(same_values(values(two_threads), values(one_thread)));
  CHECK(values(two_threads_at) == values(one_thread_at));
}

TEST_CASE("ops_nn: var and std corrections") {
  const Tensor x = make({1, 2, 3, 4, 10, 20, 30, 40}, {2, 4}, tg::kDouble);
  // Row 0: mean 2.5, sum of squared deviations 5; row 1: mean 25, 500.
  CHECK(values(x.var({1}, true)) == Values{5.0 / 3, 500.0 / 3});
  CHECK(values(x.var({1}, false)) == Values{5.0 / 4, 500.0 / 4});
  // As in LibTorch, a correction is a Scalar: a bare int would convert to var.dim's bool.
  CHECK(values(tg::var(x, std::vector<int64_t>{1}, tg::Scalar(2))) == Values{2.5, 250});
  check_close(values(tg::std(x, std::vector<int64_t>{1}, tg::Scalar(0), /*keepdim=*/true)),
              {std::sqrt(1.25), std::sqrt(125.0)});
  CHECK(std::isinf(values(tg::var(x, std::vector<int64_t>{1}, tg::Scalar(4)))[0]));  // divisor max(0, 4 - 4)
  CHECK(contains(thrown<tg::TypeError>([&] { tg::var(tg::arange(4)); }), "only support floating point dtypes"));
}

// Reduced dims ending in a contiguous run of 64 or more elements are read in place
// (batch_norm's statistics): the channel dim kept, the others reduced, against a double loop.
TEST_CASE("ops_nn: var and std over the dims around a kept one, read in place") {
  const int64_t batch = 3, channels = 5, height = 7, width = 11;  // runs of 77, tails after 16 lanes
  Values v(static_cast<size_t>(batch * channels * height * width));
  for (size_t i = 0; i < v.size(); ++i) v[i] = 1000.0 + std::sin(static_cast<double>(i)) * 3.0;  // a large mean
  for (const tg::ScalarType dtype : {tg::kDouble, tg::kFloat}) {
    CAPTURE(dtype);
    const Tensor x = make(v, {batch, channels, height, width}, dtype);
    const Values xs = values(x);  // as rounded to dtype
    const int64_t per_channel = batch * height * width;
    Values expected_var, expected_std;
    for (int64_t c = 0; c < channels; ++c) {
      double sum = 0, squares = 0;
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t p = 0; p < height * width; ++p) {
          sum += xs[static_cast<size_t>((n * channels + c) * height * width + p)];
        }
      }
      const double mean = sum / static_cast<double>(per_channel);
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t p = 0; p < height * width; ++p) {
          const double d = xs[static_cast<size_t>((n * channels + c) * height * width + p)] - mean;
          squares += d * d;
        }
      }
      expected_var.push_back(squares / static_cast<double>(per_channel - 1));
      expected_std.push_back(std::sqrt(squares / static_cast<double>(per_channel)));
    }
    const double tolerance = dtype == tg::kDouble ? 1e-12 : 1e-6;
    check_close(values(x.var({0, 2, 3}, /*unbiased=*/true)), expected_var, tolerance);
    check_close(values(tg::std(x, std::vector<int64_t>{0, 2, 3}, tg::Scalar(0), /*keepdim=*/true)), expected_std,
                tolerance);
  }
}

TEST_CASE("ops_nn: gather, scatter_add, masked_fill, one_hot") {
  const Tensor x = make({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor index = make({2, 0, 1, 1}, {2, 2}, tg::kLong);
  CHECK(values(x.gather(1, index)) == Values{3, 1, 5, 5});
  CHECK(values(tg::zeros({2, 3}).scatter_add(1, index, tg::ones({2, 2}))) == Values{1, 0, 1, 0, 2, 0});
  CHECK(contains(thrown<tg::IndexError>([&] { x.gather(1, make({3}, {1, 1}, tg::kLong)); }),
                 "[gather] index 3 is out of bounds for dimension 1 with size 3"));
  CHECK(values(x.masked_fill(make({1, 0, 1}, {3}, tg::kBool), -1)) == Values{-1, 2, -1, -1, 5, -1});
  CHECK(contains(thrown<tg::TypeError>([&] { x.masked_fill(tg::ones({3}), 0); }), "only supports boolean masks"));
  CHECK(values(tg::one_hot(make({2, 0}, {2}, tg::kLong))) == Values{0, 0, 1, 1, 0, 0});
  CHECK(shape(tg::one_hot(make({1}, {1}, tg::kLong), 4)) == Ints{1, 4});
  CHECK(contains(thrown<tg::ValueError>([&] { tg::one_hot(make({4}, {1}, tg::kLong), 3); }),
                 "class values must be smaller than num_classes (3), got 4"));
}

namespace {

// conv2d by its definition: out[n, o, y, x] = bias[o] + sum over the group's channels c and
// kernel offsets (i, j) of weight[o, c, i, j] * input[n, g * C/G + c, y*s - p + i*d, x*s - p + j*d].
Values naive_conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Ints stride, Ints padding,
                    Ints dilation, int64_t groups) {
  const Values x = values(input), w = values(weight), b = values(bias);
  const int64_t n_batch = input.size(0), channels = input.size(1), height = input.size(2), width = input.size(3);
  const int64_t out_channels = weight.size(0), kh = weight.size(2), kw = weight.size(3);
  const int64_t oh = (height + 2 * padding[0] - dilation[0] * (kh - 1) - 1) / stride[0] + 1;
  const int64_t ow = (width + 2 * padding[1] - dilation[1] * (kw - 1) - 1) / stride[1] + 1;
  const int64_t cg = channels / groups, og = out_channels / groups;
  Values out;
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t o = 0; o < out_channels; ++o) {
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t xx = 0; xx < ow; ++xx) {
          double sum = b[static_cast<size_t>(o)];
          for (int64_t c = 0; c < cg; ++c) {
            for (int64_t i = 0; i < kh; ++i) {
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t row = y * stride[0] - padding[0] + i * dilation[0];
                const int64_t column = xx * stride[1] - padding[1] + j * dilation[1];
                if (row < 0 || row >= height || column < 0 || column >= width) continue;
                const int64_t channel = (o / og) * cg + c;
                sum += x[static_cast<size_t>(((n * channels + channel) * height + row) * width + column)] *
                       w[static_cast<size_t>(((o * cg + c) * kh + i) * kw + j)];
              }
            }
          }
          out.push_back(sum);
        }
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("ops_nn: conv2d against a naive loop") {
  struct Case {
    Ints input, weight, stride, padding, dilation;
    int64_t groups;
  };
  for (const Case& c : {Case{{2, 3, 6, 5}, {4, 3, 3, 3}, {1, 1}, {0, 0}, {1, 1}, 1},
                        Case{{2, 3, 7, 6}, {4, 3, 3, 2}, {2, 1}, {1, 1}, {1, 2}, 1},
                        Case{{1, 4, 6, 6}, {6, 2, 2, 3}, {1, 2}, {0, 1}, {2, 1}, 2},
                        Case{{2, 4, 5, 5}, {4, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 4}}) {
    CAPTURE(c.input);
    tg::manual_seed(3);
    const Tensor input = tg::randn(c.input, tg::kDouble), weight = tg::randn(c.weight, tg::kDouble);
    const Tensor bias = tg::randn({c.weight[0]}, tg::kDouble);
    check_close(values(tg::conv2d(input, weight, bias, c.stride, c.padding, c.dilation, c.groups)),
                naive_conv2d(input, weight, bias, c.stride, c.padding, c.dilation, c.groups), 1e-12);
  }
  // An unbatched input gives an unbatched output; float works like double.
  tg::manual_seed(4);
  const Tensor image = tg::randn({3, 5, 5}), kernel = tg::randn({2, 3, 3, 3});
  CHECK(shape(tg::conv2d(image, kernel)) == Ints{2, 3, 3});
  check_close(values(tg::conv2d(image, kernel)), values(tg::conv2d(image.unsqueeze(0), kernel).squeeze(0)));
}

// Stride 1 with at least 16 channels per group (or a 1 x 1 kernel) takes the CPU's
// kernel-offset products (Note [Kernel-shift convolution]): padding, dilation, groups, batch 1,
// several strips of 128 positions, float and double, and 1-d through it.
TEST_CASE("ops_nn: stride-1 conv2d by kernel-offset products against a naive loop") {
  struct Case {
    Ints input, weight, padding, dilation;
    int64_t groups;
  };
  for (const Case& c : {Case{{2, 16, 7, 9}, {5, 16, 3, 2}, {1, 2}, {2, 1}, 1},
                        Case{{1, 32, 6, 5}, {6, 16, 3, 3}, {1, 1}, {1, 1}, 2},
                        Case{{1, 16, 20, 21}, {3, 16, 3, 3}, {0, 0}, {1, 1}, 1},
                        Case{{2, 3, 4, 5}, {7, 3, 1, 1}, {0, 0}, {1, 1}, 1},
                        Case{{2, 17, 5, 4}, {4, 17, 5, 4}, {0, 0}, {1, 1}, 1}}) {
    CAPTURE(c.input);
    CAPTURE(c.weight);
    tg::manual_seed(5);
    const Tensor input = tg::randn(c.input, tg::kDouble), weight = tg::randn(c.weight, tg::kDouble);
    const Tensor bias = tg::randn({c.weight[0]}, tg::kDouble);
    const Values expected = naive_conv2d(input, weight, bias, {1, 1}, c.padding, c.dilation, c.groups);
    check_close(values(tg::conv2d(input, weight, bias, {1, 1}, c.padding, c.dilation, c.groups)), expected, 1e-12);
    check_close(values(tg::conv2d(input.to(tg::kFloat), weight.to(tg::kFloat), bias.to(tg::kFloat), {1, 1},
                                  c.padding, c.dilation, c.groups)),
                expected, 1e-4);
  }
  // 1-d runs as 2-d with a height of 1.
  tg::manual_seed(6);
  const Tensor signal = tg::randn({2, 16, 30}, tg::kDouble), taps = tg::randn({4, 16, 5}, tg::kDouble);
  const Tensor no_bias = tg::zeros({4}, tg::kDouble);
  check_close(values(tg::conv1d(signal, taps, {}, {1}, {2}, {3})),
              naive_conv2d(signal.unsqueeze(2), taps.unsqueeze(2), no_bias, {1, 1}, {0, 2}, {1, 3}, 1), 1e-12);
}

TEST_CASE("ops_nn: conv2d and pooling reject bad shapes") {
  const Tensor input = tg::zeros({1, 4, 5, 5});
  CHECK(contains(thrown<tg::ValueError>([&] { tg::conv2d(input, tg::zeros({2, 3, 3, 3})); }),
                 "[conv2d] given groups=1, weight of size [2, 3, 3, 3], expected input[1, 4, 5, 5] to have 3 "
                 "channels, but got 4 channels instead"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::conv2d(input, tg::zeros({2, 4, 6, 6})); }),
                 "Kernel size can't be greater than actual input size"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::conv2d(input, tg::zeros({3, 2, 3, 3}), {}, 1, 0, 1, 2); }),
                 "expected weight to be divisible by 2 at dimension 0"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::conv2d(input, tg::zeros({2, 4, 3, 3}), tg::zeros({3})); }),
                 "expected bias to be 1-dimensional with 2 elements"));
  CHECK(contains(thrown<tg::TypeError>([&] { tg::conv2d(input, tg::zeros({2, 4, 3, 3}, tg::kDouble)); }),
                 "input type (float32) and weight type (float64) should be the same"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::max_pool2d(input, {2, 2}, {}, {2, 2}); }),
                 "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::avg_pool2d(tg::zeros({5, 5}), {2, 2}); }),
                 "non-empty 3D or 4D (batch mode) tensor expected for input"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::max_pool2d(tg::zeros({1, 1, 2, 2}), {3, 3}); }),
                 "is too small"));
}

TEST_CASE("ops_nn: pooling windows, padding and ceil_mode") {
  const Tensor x = tg::arange(16, tg::kDouble).view({1, 1, 4, 4});
  auto [maxima, indices] = tg::max_pool2d_with_indices(x, {2, 2});
  CHECK(values(maxima) == Values{5, 7, 13, 15});
  CHECK(values(indices) == Values{5, 7, 13, 15});
  // 3x3 windows, stride 2, padding 1: corner windows see 4 elements, the others 6 or 9.
  CHECK(values(tg::avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}, false, /*count_include_pad=*/false)) ==
        Values{(0 + 1 + 4 + 5) / 4.0, (1 + 2 + 3 + 5 + 6 + 7) / 6.0, (4 + 5 + 8 + 9 + 12 + 13) / 6.0,
               (5 + 6 + 7 + 9 + 10 + 11 + 13 + 14 + 15) / 9.0});
  CHECK(values(tg::avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}))[0] == doctest::Approx(10.0 / 9));  // padding counted
  CHECK(values(tg::avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}, false, true, /*divisor_override=*/2))[0] == 5.0);
  // ceil_mode adds a last, partial window: 4 -> 2 windows of 3 with stride 2.
  CHECK(shape(tg::max_pool2d(x, {3, 3}, {2, 2}, {0, 0}, {1, 1}, /*ceil_mode=*/true)) == Ints{1, 1, 2, 2});
  CHECK(shape(tg::max_pool2d(x, {3, 3}, {2, 2})) == Ints{1, 1, 1, 1});
}

TEST_CASE("ops_nn: scaled_dot_product_attention against its definition") {
  tg::manual_seed(5);
  const Tensor q = tg::randn({2, 3, 4}, tg::kDouble), k = tg::randn({2, 5, 4}, tg::kDouble);
  const Tensor v = tg::randn({2, 5, 6}, tg::kDouble);
  auto reference = [&](const Tensor& scores) { return tg::matmul(tg::softmax(scores, -1), v); };
  const Tensor scores = tg::matmul(q, k.transpose(1, 2)) / 2.0;  // 1 / sqrt(E), E = 4
  check_close(values(tg::scaled_dot_product_attention(q, k, v)), values(reference(scores)), 1e-12);
  check_close(values(tg::scaled_dot_product_attention(q, k, v, {}, 0.0, false, 0.3)),
              values(reference(scores * 0.6)), 1e-12);
  // A bool mask keeps the true positions; masking key 4 equals dropping it.
  const Tensor keep = make({1, 1, 1, 1, 0}, {5}, tg::kBool);
  check_close(values(tg::scaled_dot_product_attention(q, k, v, keep)),
              values(tg::scaled_dot_product_attention(q, k.narrow(1, 0, 4), v.narrow(1, 0, 4))), 1e-12);
  // Causal: query i sees keys 0..i.
  const Tensor causal = tg::scaled_dot_product_attention(q, k.narrow(1, 0, 3), v.narrow(1, 0, 3), {}, 0.0, true);
  check_close(values(causal.select(1, 0)), values(v.select(1, 0)), 1e-12);
  // Grouped-query attention repeats each key/value head for its query heads.
  const Tensor q4 = tg::randn({1, 4, 3, 4}, tg::kDouble), k2 = tg::randn({1, 2, 5, 4}, tg::kDouble);
  const Tensor v2 = tg::randn({1, 2, 5, 6}, tg::kDouble);
  const Tensor grouped = tg::scaled_dot_product_attention(q4, k2, v2, {}, 0.0, false, std::nullopt, true);
  check_close(values(grouped.narrow(1, 2, 2)),
              values(tg::scaled_dot_product_attention(q4.narrow(1, 2, 2), k2.narrow(1, 1, 1).expand({1, 2, 5, 4}),
                                                      v2.narrow(1, 1, 1).expand({1, 2, 5, 6}))),
              1e-12);
  CHECK(contains(thrown<tg::ValueError>([&] { tg::scaled_dot_product_attention(q, k, v, keep, 0.0, true); }),
                 "explicit attn_mask should not be set when is_causal=True"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::scaled_dot_product_attention(q, v, v); }),
                 "expected query and key to have the same embedding dimension"));
}
