// The operators the ported tests needed: norm, all/any, smooth_l1_loss,
// binary_cross_entropy(_with_logits), against direct formulas and finite differences.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include <tensorgen/tensorgen.h>

#include "autograd/gradcheck.h"

using tg::Tensor;
using tg::autograd::variable_list;

TEST_CASE("frontend_ops: norm values for p = 2, 1, 3, inf, 0 and dims") {
  Tensor x = tg::tensor({{3.0, -4.0}, {0.0, 1.0}});
  CHECK(tg::norm(x).item<double>() == doctest::Approx(std::sqrt(26.0)));
  CHECK(x.norm(1).item<double>() == doctest::Approx(8.0));
  CHECK(x.norm(3).item<double>() == doctest::Approx(std::cbrt(27.0 + 64.0 + 1.0)));
  CHECK(x.norm(INFINITY).item<double>() == doctest::Approx(4.0));
  CHECK(x.norm(0).item<double>() == doctest::Approx(3.0));
  Tensor rows = tg::norm(x, 2, {1});
  CHECK(tg::allclose(rows, tg::tensor({5.0, 1.0})));
  CHECK(tg::norm(x, 2, {0}, true).sizes() == tg::IntArrayRef({1, 2}));
  CHECK_THROWS_WITH_AS(tg::norm(tg::ones({2}, tg::kLong)), doctest::Contains("floating point"), tg::Error);
}

TEST_CASE("frontend_ops: norm gradients, zero where the norm is zero") {
  tg::manual_seed(2);
  Tensor x = tg::randn({3, 4}, tg::kDouble).requires_grad_();
  for (double p : {2.0, 1.0, 3.0, 1.5, static_cast<double>(INFINITY)}) {
    CAPTURE(p);
    auto fn = [p](const variable_list& in) { return variable_list{tg::norm(in[0], p, {1})}; };
    CHECK(tg::autograd::gradcheck(fn, {x}).ok);
  }
  Tensor zero = tg::zeros({3}, tg::requires_grad());
  tg::norm(zero).backward();
  CHECK(tg::equal(zero.grad(), tg::zeros({3})));
}

TEST_CASE("frontend_ops: all and any, full and along a dim") {
  Tensor m = tg::tensor({{1, 0, 2}, {3, 4, 5}});
  CHECK_FALSE(m.all().item<bool>());
  CHECK(m.any().item<bool>());
  CHECK(m.all().scalar_type() == tg::kBool);
  CHECK(tg::equal(m.all(1), tg::tensor({false, true})));
  CHECK(tg::equal(m.any(0, true), tg::tensor({{true, true, true}})));
  CHECK(tg::zeros({0}).all().item<bool>());
  CHECK_FALSE(tg::zeros({0}).any().item<bool>());
  CHECK(tg::equal(tg::tensor({true, false}).any(0), tg::tensor(true)));
}

TEST_CASE("frontend_ops: smooth_l1_loss and the binary cross entropies against their formulas") {
  Tensor x = tg::tensor({0.2, -1.5, 3.0});
  Tensor y = tg::tensor({0.0, 0.0, 1.0});
  // |d| < 1: 0.5 d^2; else |d| - 0.5
  CHECK(tg::allclose(tg::smooth_l1_loss(x, y, 0), tg::tensor({0.02, 1.0, 1.5})));
  CHECK(tg::smooth_l1_loss(x, y).item<double>() == doctest::Approx((0.02 + 1.0 + 1.5) / 3));
  CHECK(tg::allclose(tg::smooth_l1_loss(x, y, 0, 0.0), tg::tensor({0.2, 1.5, 2.0})));

  Tensor p = tg::tensor({0.9, 0.2, 0.6});
  Tensor t = tg::tensor({1.0, 0.0, 1.0});
  Tensor expected = -(t * p.log() + (1 - t) * (1 - p).log());
  CHECK(tg::allclose(tg::binary_cross_entropy(p, t, std::nullopt, 0), expected));
  Tensor logits = tg::tensor({2.0, -30.0, 40.0});
  Tensor via_sigmoid = tg::binary_cross_entropy(logits.sigmoid(), t, std::nullopt, 0);
  Tensor direct = tg::binary_cross_entropy_with_logits(logits, t, std::nullopt, std::nullopt, 0);
  CHECK(std::isfinite(direct.sum().item<double>()));
  CHECK(direct[0].item<double>() == doctest::Approx(via_sigmoid[0].item<double>()));
  CHECK(direct[2].item<double>() == doctest::Approx(0.0).epsilon(1e-12));
  Tensor pos_weight = tg::tensor({3.0, 3.0, 3.0});
  Tensor weighted = tg::binary_cross_entropy_with_logits(logits, t, std::nullopt, pos_weight, 0);
  CHECK(weighted[0].item<double>() == doctest::Approx(3 * direct[0].item<double>()));
  CHECK_THROWS_WITH_AS(tg::binary_cross_entropy(p, tg::ones({2}, tg::kDouble)), doctest::Contains("target size"),
                       tg::Error);
}

TEST_CASE("frontend_ops: loss gradients match finite differences") {
  tg::manual_seed(4);
  Tensor x = tg::randn({4, 3}, tg::kDouble).requires_grad_();
  Tensor target = tg::rand({4, 3}, tg::kDouble);
  auto smooth = [&](const variable_list& in) { return variable_list{tg::smooth_l1_loss(in[0], target, 1, 0.5)}; };
  CHECK(tg::autograd::gradcheck(smooth, {x}).ok);
  auto logits = [&](const variable_list& in) {
    return variable_list{tg::binary_cross_entropy_with_logits(in[0], target, std::nullopt, tg::full({3}, 2.0, tg::kDouble))};
  };
  CHECK(tg::autograd::gradcheck(logits, {x}).ok);
  Tensor probabilities = (tg::rand({4, 3}, tg::kDouble) * 0.8 + 0.1).requires_grad_();
  auto bce = [&](const variable_list& in) { return variable_list{tg::binary_cross_entropy(in[0], target)}; };
  CHECK(tg::autograd::gradcheck(bce, {probabilities}).ok);
}
