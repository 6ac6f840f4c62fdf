// Tests of the reductions end to end: sum, mean, amax, amin over dim lists (None or empty =
// all, negative dims, keepdim, duplicate and out-of-range dims), their dtype rules, max.dim
// (values and first-index ties), argmax (flattened or along a dim), NaN handling, empty
// reductions, non-contiguous inputs and numerically careful floating sums.
#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;

namespace {
// [[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, ...], ...]]: shape [2, 3, 4].
Tensor iota234(tg::ScalarType dtype = tg::kFloat) { return tg::arange(24, dtype).reshape({2, 3, 4}); }
}  // namespace

TEST_CASE("ops_reduction: sum over dims") {
  const Tensor x = iota234();
  CHECK(values(tg::sum(x)) == Values{276});
  CHECK(shape(tg::sum(x)) == Ints{});
  CHECK(values(x.sum(Ints{0})) == Values{12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34});
  CHECK(values(x.sum(Ints{2})) == Values{6, 22, 38, 54, 70, 86});
  CHECK(values(x.sum(Ints{-1})) == Values{6, 22, 38, 54, 70, 86});
  CHECK(values(x.sum(Ints{0, 2})) == Values{60, 92, 124});
  CHECK(shape(x.sum(Ints{0, 2}, /*keepdim=*/true)) == Ints{1, 3, 1});
  CHECK(shape(x.sum(Ints{1}, true)) == Ints{2, 1, 4});
  CHECK(values(x.sum(Ints{}, false)) == Values{276});         // an empty list reduces every dim
  CHECK(values(x.sum(std::nullopt, false)) == Values{276});  // so does None
  CHECK(shape(x.sum(std::nullopt, true)) == Ints{1, 1, 1});
  // Inner, outer and middle dims of a non-contiguous input.
  const Tensor xt = x.transpose(0, 2);  // [4, 3, 2]
  CHECK(values(xt.sum(Ints{2})) == values(x.sum(Ints{0}).transpose(0, 1)));
  CHECK(values(xt.sum(Ints{0, 1})) == Values{66, 210});

  CHECK(contains(thrown<tg::ValueError>([&] { x.sum(Ints{1, -2}); }), "appears multiple times"));
  CHECK(thrown<tg::IndexError>([&] { x.sum(Ints{3}); }) ==
        "[sum] dimension out of range (expected to be in range of [-3, 2], but got 3)");
  Tensor out = tg::empty({0});
  tg::sum_out(out, x, Ints{1});
  CHECK(shape(out) == Ints{2, 4});
  CHECK(values(out) == Values{12, 15, 18, 21, 48, 51, 54, 57});

  const Tensor scalar = tg::scalar_tensor(2.5, tg::kFloat);
  CHECK(values(scalar.sum(Ints{0})) == Values{2.5});
  CHECK(shape(scalar.sum(Ints{-1}, true)) == Ints{});
  CHECK(values(tg::empty({0, 3}).sum(Ints{0})) == Values{0, 0, 0});
}

TEST_CASE("ops_reduction: sum dtypes and precision") {
  for (tg::ScalarType dtype : kAllDtypes) {
    CAPTURE(dtype);
    const Tensor x = make({1, 1, 0, 1, 1, 1}, {2, 3}, dtype);
    const Tensor total = tg::sum(x);
    CHECK(total.scalar_type() == (tg::is_floating_type(dtype) ? dtype : tg::kLong));
    CHECK(values(total) == Values{5});
    CHECK(values(x.sum(Ints{1})) == Values{2, 3});
  }
  CHECK(tg::sum(make({1, 2}, {2}, tg::kInt), tg::kDouble).scalar_type() == tg::kDouble);
  const Tensor wrapped = tg::sum(make({100, 100, 100}, {3}, tg::kLong), Ints{0}, false, tg::kChar);
  CHECK(wrapped.scalar_type() == tg::kChar);
  CHECK(values(wrapped) == Values{44});  // 300 wraps modulo 256
  CHECK(values(tg::sum(make({1.5, 2.5}, {2}), tg::kLong)) == Values{3});  // converted first: 1 + 2

  // Accumulating in the element type would stall at 2048 (float16) or 256 (bfloat16).
  CHECK(values(tg::ones({4096}, tg::kHalf).sum()) == Values{4096});
  CHECK(values(tg::ones({1024}, tg::kBFloat16).sum()) == Values{1024});
  // A float32 running sum of 0.1f drifts to ~100958; accumulated in double it is exact.
  CHECK(values(tg::full({1000000}, 0.1f).sum()) == Values{100000});
  CHECK(values(tg::full({1000, 1000}, 0.1f).sum(Ints{0})).at(7) == doctest::Approx(100.0).epsilon(1e-6));
  // Pairwise summation keeps a float64 sum of a million 0.1s within 1e-9 (naive: ~1e-6).
  CHECK(std::fabs(values(tg::full({1000000}, 0.1, tg::kDouble).sum())[0] - 100000.0) < 1e-9);
}

TEST_CASE("ops_reduction: reductions over outer dims (rows of accumulators) equal a double reference") {
  // Odd row lengths leave tails after the vector lanes; a NaN in one column must reach its
  // amax and amin and no other column's.
  for (int64_t n : {1, 5, 19, 1027}) {
    CAPTURE(n);
    const int64_t m = 37;
    Values v(static_cast<size_t>(m * n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<double>(i)) * 100.0;
    v[static_cast<size_t>(3 * n + n / 2)] = std::nan("");
    const Tensor x = make(v, {m, n}, tg::kFloat);
    const Values xs = values(x);  // as rounded to float
    Values sums(static_cast<size_t>(n), 0.0), maxima(static_cast<size_t>(n), -INFINITY);
    for (int64_t row = 0; row < m; ++row) {
      for (int64_t j = 0; j < n; ++j) {
        const double e = xs[static_cast<size_t>(row * n + j)];
        sums[j] += e;
        maxima[j] = std::isnan(e) || std::isnan(maxima[j]) ? NAN : std::max(maxima[j], e);
      }
    }
    const Values got_sums = values(x.sum(0)), got_maxima = values(tg::amax(x, {0}));
    for (int64_t j = 0; j < n; ++j) {
      CAPTURE(j);
      if (std::isnan(sums[j])) {
        CHECK(std::isnan(got_sums[j]));
        CHECK(std::isnan(got_maxima[j]));
      } else {
        CHECK(std::fabs(got_sums[j] - sums[j]) <= 1e-6 * std::fabs(sums[j]) + 1e-5);  // a float's rounding
        CHECK(got_maxima[j] == maxima[j]);
      }
    }
  }
}

TEST_CASE("ops_reduction: mean") {
  const Tensor x = iota234();
  CHECK(values(tg::mean(x)) == Values{11.5});
  CHECK(values(x.mean(Ints{0, 1})) == Values{10, 11, 12, 13});
  CHECK(shape(x.mean(Ints{-1}, true)) == Ints{2, 3, 1});
  CHECK(values(x.mean(Ints{-1})) == Values{1.5, 5.5, 9.5, 13.5, 17.5, 21.5});
  CHECK(values(tg::mean(make({1, 2, 3, 4}, {4}, tg::kHalf))) == Values{2.5});
  CHECK(tg::mean(make({1, 2}, {2}, tg::kHalf)).scalar_type() == tg::kHalf);
  const Tensor ints = make({1, 2}, {2}, tg::kLong);
  CHECK(contains(thrown<tg::TypeError>([&] { tg::mean(ints); }), "[mean] could not infer output dtype"));
  CHECK(contains(thrown<tg::TypeError>([&] { tg::mean(ints, tg::kLong); }), "got int64"));
  const Tensor as_float = tg::mean(ints, tg::kFloat);
  CHECK(as_float.scalar_type() == tg::kFloat);
  CHECK(values(as_float) == Values{1.5});
  CHECK(std::isnan(values(tg::mean(tg::empty({0})))[0]));  // 0 / 0
}

TEST_CASE("ops_reduction: amax and amin") {
  const Tensor x = iota234();
  CHECK(values(tg::amax(x)) == Values{23});
  CHECK(values(tg::amin(x)) == Values{0});
  CHECK(values(x.amax(Ints{1})) == Values{8, 9, 10, 11, 20, 21, 22, 23});
  CHECK(values(x.amin(Ints{0, -1}, true)) == Values{0, 4, 8});
  CHECK(shape(x.amin(Ints{0, -1}, true)) == Ints{1, 3, 1});
  CHECK(values(tg::amax(x.transpose(0, 2), Ints{0})) == Values{3, 15, 7, 19, 11, 23});
  for (tg::ScalarType dtype : kAllDtypes) {
    CAPTURE(dtype);
    const bool is_bool = dtype == tg::kBool;
    const Tensor t = is_bool ? make({0, 1, 0}, {3}, dtype) : make({1, 3, 2}, {3}, dtype);
    CHECK(tg::amax(t).scalar_type() == dtype);
    CHECK(values(tg::amax(t)) == Values{is_bool ? 1.0 : 3.0});
    CHECK(values(tg::amin(t)) == Values{is_bool ? 0.0 : 1.0});
  }
  CHECK(values(tg::amax(make({-INFINITY, -INFINITY}, {2}))) == Values{-INFINITY});
  CHECK(values(tg::amin(make({INFINITY}, {1}))) == Values{INFINITY});
  CHECK(std::isnan(values(tg::amax(make({1, NAN, 3}, {3})))[0]));
  CHECK(std::isnan(values(tg::amin(make({1, NAN, 3}, {3}, tg::kDouble))).at(0)));
  CHECK(values(tg::max(x)) == Values{23});

  const Tensor empty = tg::empty({0, 3});
  CHECK(thrown<tg::IndexError>([&] { tg::amax(empty, Ints{0}); }) ==
        "[amax] expected reduction dim 0 to have non-zero size, got a tensor of shape [0, 3]");
  CHECK(contains(thrown<tg::IndexError>([&] { tg::amin(empty); }), "[amin] expected reduction dim 0"));
  CHECK(shape(tg::amax(empty, Ints{1})) == Ints{0});
}

TEST_CASE("ops_reduction: max.dim") {
  const Tensor y = make({1, 5, 2, 1, 4, 7}, {2, 3});
  auto [values0, indices0] = tg::max(y, 0);
  CHECK(values(values0) == Values{1, 5, 7});
  CHECK(indices0.scalar_type() == tg::kLong);
  CHECK(values(indices0) == Values{0, 0, 1});  // ties give the first index
  auto [values1, indices1] = y.max(-1, /*keepdim=*/true);
  CHECK(shape(values1) == Ints{2, 1});
  CHECK(values(values1) == Values{5, 7});
  CHECK(values(indices1) == Values{1, 2});
  auto [nan_value, nan_index] = tg::max(make({1, NAN, 3, NAN}, {4}), 0);
  CHECK(std::isnan(values(nan_value)[0]));
  CHECK(values(nan_index) == Values{1});
  auto [scalar_value, scalar_index] = tg::max(tg::scalar_tensor(4, tg::kInt), 0);
  CHECK(shape(scalar_value) == Ints{});
  CHECK(values(scalar_value) == Values{4});
  CHECK(values(scalar_index) == Values{0});
  auto [t_values, t_indices] = tg::max(y.transpose(0, 1), 1);
  CHECK(values(t_values) == Values{1, 5, 7});
  CHECK(values(t_indices) == Values{0, 0, 1});

  for (tg::ScalarType dtype : kAllDtypes) {
    CAPTURE(dtype);
    auto [v, i] = tg::max(make({1, 3, 3, 0}, {2, 2}, dtype), 1);
    CHECK(v.scalar_type() == dtype);
    CHECK(values(v) == (dtype == tg::kBool ? Values{1, 1} : Values{3, 3}));
    CHECK(values(i) == (dtype == tg::kBool ? Values{0, 0} : Values{1, 0}));
  }

  Tensor out_values = tg::empty({0}), out_indices = tg::empty({0}, tg::kLong);
  tg::max_out(out_values, out_indices, y, 1);
  CHECK(values(out_values) == Values{5, 7});
  CHECK(values(out_indices) == Values{1, 2});
  CHECK(contains(thrown<tg::IndexError>([] { tg::max(tg::empty({2, 0}), 1); }), "[max] expected reduction dim 1"));
  CHECK(contains(thrown<tg::IndexError>([&] { tg::max(y, 2); }), "[max] dimension out of range"));
}

TEST_CASE("ops_reduction: argmax") {
  const Tensor x = make({1, 5, 5, 2}, {2, 2});
  const Tensor flat = tg::argmax(x);
  CHECK(flat.scalar_type() == tg::kLong);
  CHECK(shape(flat) == Ints{});
  CHECK(values(flat) == Values{1});
  CHECK(shape(x.argmax(std::nullopt, true)) == Ints{1, 1});
  CHECK(values(tg::argmax(x, 0)) == Values{1, 0});
  CHECK(values(tg::argmax(x, -1, true)) == Values{1, 0});
  CHECK(shape(tg::argmax(x, -1, true)) == Ints{2, 1});
  const Tensor asymmetric = make({1, 2, 7, 3}, {2, 2});
  CHECK(values(tg::argmax(asymmetric)) == Values{2});
  CHECK(values(tg::argmax(asymmetric.transpose(0, 1))) == Values{1});  // flattened in the transposed order
  CHECK(values(tg::argmax(make({1, NAN, NAN}, {3}))) == Values{1});
  for (tg::ScalarType dtype : kAllDtypes) {
    CAPTURE(dtype);
    const Tensor t = make({1, 3, 2, 3}, {4}, dtype);
    if (dtype == tg::kBool) {
      CHECK(contains(thrown<tg::NotImplementedError>([&] { tg::argmax(t); }), "[argmax] not implemented for 'bool'; supported: "));
    } else {
      CHECK(values(tg::argmax(t)) == Values{1});
    }
  }
  CHECK(contains(thrown<tg::IndexError>([] { tg::argmax(tg::empty({0})); }), "numel() == 0"));
  CHECK(contains(thrown<tg::IndexError>([] { tg::argmax(tg::empty({3, 0}), 1); }), "[argmax] expected reduction dim 1"));
}

TEST_CASE("ops_reduction: a braced dim list is read for the whole call") {
  // t.sum({1}) once read a temporary destroyed inside std::optional's constructor.
  Tensor a = tg::arange(6, tg::kFloat).view({2, 3});
  Tensor s = a.sum({1});
  CHECK(s.sizes() == tg::IntArrayRef({2}));
  CHECK(s.select(0, 0).item<float>() == 3.f);
  CHECK(s.select(0, 1).item<float>() == 12.f);
  CHECK(tg::mean(a, {0}).select(0, 2).item<float>() == 3.5f);
}
