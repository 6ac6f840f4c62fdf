// Point 4 of issue 20: the differences from LibTorch found by calling every overload in both
// with the same inputs, each now matched (or kept on purpose: see docs/operators.md).
#include <tuple>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;

TEST_CASE("parity: an integral tensor to a negative integral Scalar power raises, as in LibTorch") {
  const Tensor i = make({2, 3}, {2}, tg::kLong);
  CHECK(contains(thrown<tg::ValueError>([&] { tg::pow(i, -1); }),
                 "[pow] Integers to negative integer powers are not allowed"));
  CHECK(contains(thrown<tg::ValueError>([&] { i.clone().pow_(-2); }), "[pow_] Integers to negative integer powers"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::pow(make({1}, {1}, tg::kBool), -1); }), "not allowed"));
  // What LibTorch allows stays: a positive exponent, a floating base or exponent, and a
  // Tensor exponent (powi's answer: 0 unless the base is 1 or -1).
  CHECK(values(tg::pow(i, 2)) == Values{4, 9});
  CHECK(values(tg::pow(make({2}, {1}), -1)) == Values{0.5});
  const Values reciprocal = values(tg::pow(i, -1.0));  // float32: the default dtype
  CHECK(reciprocal[0] == 0.5);
  CHECK(reciprocal[1] == doctest::Approx(1.0 / 3).epsilon(1e-6));
  CHECK(values(tg::pow(make({2, 1, -1}, {3}, tg::kLong), make({-1}, {1}, tg::kLong))) == Values{0, 1, -1});
}

TEST_CASE("parity: abs refuses bool, as LibTorch") {
  const Tensor b = make({1, 0}, {2}, tg::kBool);
  const std::string message = thrown<tg::NotImplementedError>([&] { tg::abs(b); });
  CHECK(contains(message, "[abs] not implemented for 'bool'"));
  CHECK(values(tg::abs(make({-2, 3}, {2}, tg::kChar))) == Values{2, 3});
}

TEST_CASE("parity: sum and mean with dtype= refuse an out= of another dtype") {
  const Tensor x = make({1, 2, 3, 4}, {2, 2});
  Tensor out = tg::empty({0}, tg::TensorOptions().dtype(tg::kDouble));
  CHECK(contains(thrown<tg::TypeError>([&] { tg::sum_out(out, x, {0}, false, tg::kFloat); }),
                 "[sum.IntList_out] Expected out tensor to have dtype float32, but got float64 instead"));
  CHECK(contains(thrown<tg::TypeError>([&] { tg::mean_out(out, x, {0}, false, tg::kFloat); }),
                 "[mean.out] Expected out tensor to have dtype float32, but got float64 instead"));
  // The dtype asked for: fine. No dtype=: LibTorch computes in out's dtype; the values agree.
  tg::sum_out(out, x, {0}, false, tg::kDouble);
  CHECK(values(out) == Values{4, 6});
  tg::mean_out(out, x, {1});
  CHECK(out.scalar_type() == tg::kDouble);
  CHECK(values(out) == Values{1.5, 3.5});
}

TEST_CASE("parity: nll_loss_forward's total_weight is 0 for an unreduced batch, as LibTorch") {
  const Tensor logp = make({-1, -2, -3, -4, -5, -6}, {2, 3});
  const Tensor target = make({2, 0}, {2}, tg::kLong);
  const Tensor weight = make({0.5, 1, 2}, {3});
  auto [none_loss, none_total] = tg::nll_loss_forward(logp, target, weight, tg::Reduction::None, -100);
  CHECK(values(none_loss) == Values{6, 2});
  CHECK(values(none_total) == Values{0});
  auto [mean_loss, mean_total] = tg::nll_loss_forward(logp, target, weight, tg::Reduction::Mean, -100);
  CHECK(values(mean_total) == Values{2.5});
  CHECK(values(mean_loss)[0] == doctest::Approx(8.0 / 2.5));
  // A 1-d self reduces even with reduction none: total_weight is the target's weight there.
  auto [one_loss, one_total] = tg::nll_loss_forward(make({-1, -2, -3}, {3}), make({1}, {}, tg::kLong), weight,
                                                    tg::Reduction::None, -100);
  CHECK(values(one_total) == Values{1});
}

TEST_CASE("parity: masked_fill takes bool masks only, as LibTorch 2.x (1.13 also took uint8, deprecated)") {
  const Tensor x = tg::zeros({2});
  for (tg::ScalarType dtype : {tg::kByte, tg::kLong}) {
    const Tensor mask = make({1, 0}, {2}, dtype);
    CHECK(contains(thrown<tg::Error>([&] { tg::masked_fill(x, mask, 1.0); }), "masked_fill"));
  }
  CHECK(values(tg::masked_fill(x, make({1, 0}, {2}, tg::kBool), 1.0)) == Values{1, 0});
}
