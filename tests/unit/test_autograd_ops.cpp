// Autograd through the generated kernels: gradients of real operators against finite
// differences in float64, higher order, in-place operations and views, and the errors.
#include <doctest/doctest.h>

#include <tensorgen/tensorgen.h>

#include "AutogradFunctions.h"
#include "autograd/autograd.h"
#include "autograd/gradcheck.h"

using tg::Tensor;
using tg::autograd::variable_list;

namespace {

Tensor leaf(std::vector<int64_t> sizes, uint64_t seed) {
  tg::manual_seed(seed);
  return tg::randn(sizes, tg::kDouble).requires_grad_();
}

double max_abs_diff(const Tensor& a, const Tensor& b) { return (a - b).abs().amax().item<double>(); }

}  // namespace

TEST_CASE("autograd_ops: two-layer MLP gradients match finite differences") {
  Tensor x = leaf({4, 3}, 1), w1 = leaf({5, 3}, 2), b1 = leaf({5}, 3), w2 = leaf({2, 5}, 4), b2 = leaf({2}, 5);
  auto mlp = [](const variable_list& in) {
    Tensor hidden = tg::linear(in[0], in[1], in[2]).tanh();
    return variable_list{tg::linear(hidden, in[3], in[4]).sigmoid().mean()};
  };
  auto result = tg::autograd::gradcheck(mlp, {x, w1, b1, w2, b2});
  CHECK_MESSAGE(result.ok, result.message);

  // backward() accumulates the same gradients into the leaves.
  mlp({x, w1, b1, w2, b2})[0].backward();
  variable_list expected = tg::autograd::grad(mlp({x, w1, b1, w2, b2}), {x, w1, b1, w2, b2});
  CHECK(max_abs_diff(w1.grad(), expected[1]) < 1e-12);
  CHECK(max_abs_diff(b2.grad(), expected[4]) < 1e-12);
  CHECK(w1.grad().sizes() == w1.sizes());
}

TEST_CASE("autograd_ops: broadcast-heavy expression matches finite differences") {
  Tensor a = leaf({3, 1}, 10), b = leaf({1, 4}, 11), c = leaf({4}, 12), d = leaf({}, 13);
  auto f = [](const variable_list& in) {
    Tensor y = (in[0] * in[1] + in[2]).sigmoid() / (in[0] * in[0] + 1) - in[3] * in[2];
    return variable_list{y.sum({1}), tg::exp(in[3] * in[1]).sum()};
  };
  auto result = tg::autograd::gradcheck(f, {a, b, c, d});
  CHECK_MESSAGE(result.ok, result.message);
  // Broadcast gradients come back in the input's shape.
  variable_list grads = tg::autograd::grad({f({a, b, c, d})[0].sum()}, {a, b, c, d});
  CHECK(grads[0].sizes() == a.sizes());
  CHECK(grads[1].sizes() == b.sizes());
  CHECK(grads[2].sizes() == c.sizes());
  CHECK(grads[3].dim() == 0);
}

TEST_CASE("autograd_ops: double backward of tanh and of a product") {
  Tensor x = leaf({5}, 20), y = leaf({5}, 21);
  auto tanh_fn = [](const variable_list& in) { return variable_list{in[0].tanh()}; };
  auto product = [](const variable_list& in) { return variable_list{in[0] * in[1]}; };
  auto r1 = tg::autograd::gradgradcheck(tanh_fn, {x});
  CHECK_MESSAGE(r1.ok, r1.message);
  auto r2 = tg::autograd::gradgradcheck(product, {x, y});
  CHECK_MESSAGE(r2.ok, r2.message);

  // d2/dx2 tanh(x) = -2 tanh(x) (1 - tanh(x)^2), through create_graph.
  Tensor g = tg::autograd::grad({x.tanh().sum()}, {x}, {}, true, /*create_graph=*/true)[0];
  Tensor gg = tg::autograd::grad({g.sum()}, {x})[0];
  Tensor t = x.detach().tanh();
  CHECK(max_abs_diff(gg, -2 * t * (1 - t * t)) < 1e-12);
}

TEST_CASE("autograd_ops: in-place on a view rewrites the base's history") {
  Tensor x = leaf({2, 3}, 30);
  Tensor y = x * 2;
  Tensor v = y.view({6});
  v.mul_(3);  // y is now 6 x
  y.sum().backward();
  CHECK(max_abs_diff(x.grad(), tg::full({2, 3}, 6.0, tg::kDouble)) < 1e-12);

  // Part of the base: only the selected row is scaled.
  Tensor x2 = leaf({2, 3}, 31);
  Tensor z = x2 * 1;
  z.select(0, 1).mul_(x2.select(0, 0));
  Tensor loss = z.sum();
  auto f = [](const variable_list& in) {
    Tensor w = in[0] * 1;
    w.select(0, 1).mul_(in[0].select(0, 0));
    return variable_list{w.sum()};
  };
  auto result = tg::autograd::gradcheck(f, {x2});
  CHECK_MESSAGE(result.ok, result.message);
  loss.backward();
  Tensor expected_row0 = 1 + x2.detach().select(0, 1);
  CHECK(max_abs_diff(x2.grad().select(0, 0), expected_row0) < 1e-12);
}

TEST_CASE("autograd_ops: errors for in-place misuse") {
  Tensor x = leaf({3}, 40);
  CHECK_THROWS_WITH_AS(x.add_(1), doctest::Contains("a leaf Variable that requires grad"), tg::Error);

  Tensor y = x.exp();
  y.add_(1);  // exp saved its result, which this modifies
  CHECK_THROWS_WITH_AS(y.sum().backward(), doctest::Contains("modified by an inplace operation"), tg::Error);
  Tensor z = x.exp();
  z.mul_(2);
  try {
    z.sum().backward();
    FAIL("expected an error");
  } catch (const tg::Error& e) {
    CHECK(std::string(e.what()).find("ExpBackward0") != std::string::npos);
    CHECK(std::string(e.what()).find("version 1") != std::string::npos);
  }

  Tensor out = tg::empty({3}, tg::kDouble);
  CHECK_THROWS_WITH_AS(tg::add_out(out, x, x), doctest::Contains("don't support automatic differentiation"),
                       tg::Error);
}

TEST_CASE("autograd_ops: retain_graph, no_grad and not-implemented derivatives") {
  Tensor x = leaf({3}, 50);
  Tensor y = (x * x).sum();
  y.backward({}, /*retain_graph=*/true);
  y.backward();
  CHECK(max_abs_diff(x.grad(), 4 * x.detach()) < 1e-12);
  CHECK_THROWS_WITH_AS(y.backward(), doctest::Contains("backward through the graph a second time"), tg::Error);

  {
    tg::NoGradGuard no_grad;
    Tensor z = x * 2;
    CHECK_FALSE(z.requires_grad());
    CHECK(z.grad_fn() == nullptr);
  }
  Tensor w = x * 2;
  CHECK(w.requires_grad());
  CHECK(w.grad_fn()->name() == "MulBackward0");

  Tensor s = x.as_strided({2}, {1});
  CHECK_THROWS_WITH_AS(s.sum().backward(), doctest::Contains("not implemented"), tg::Error);
}

TEST_CASE("autograd_ops: reductions with ties share the gradient") {
  Tensor x = tg::tensor({1.0, 3.0, 3.0, 2.0}, tg::kDouble).requires_grad_();
  x.amax().backward();
  CHECK(max_abs_diff(x.grad(), tg::tensor({0.0, 0.5, 0.5, 0.0}, tg::kDouble)) == 0);

  Tensor m = tg::tensor({1.0, 4.0, 2.0, 4.0}, tg::kDouble).view({2, 2}).detach().requires_grad_();
  auto [values, indices] = tg::max(m, 1);
  values.sum().backward();
  CHECK(max_abs_diff(m.grad(), tg::tensor({0.0, 1.0, 0.0, 1.0}, tg::kDouble).view({2, 2})) == 0);
  CHECK_FALSE(indices.requires_grad());
}

// Note [Save only what is needed] (codegen/autograd.py): mul saves `other` only for self's
// gradient and `self` only for other's, so with only `w` requiring grad, `x * w` keeps x
// (needed for w's gradient) and not w.
TEST_CASE("autograd_ops: a node saves only the tensors the needed gradients read") {
  Tensor x = tg::tensor({1.0, 2.0, 3.0}, tg::kDouble);
  Tensor w_leaf = tg::tensor({4.0, 5.0, 6.0}, tg::kDouble).requires_grad_();
  Tensor w = w_leaf.clone();
  Tensor y = x * w;
  auto* node = dynamic_cast<tg::autograd::generated::MulBackward0*>(y.grad_fn().get());
  REQUIRE(node != nullptr);
  CHECK_FALSE(node->self_.was_default_constructed());  // x: read by w's gradient
  CHECK(node->other_.was_default_constructed());       // w: read only by x's, not needed

  // w was not saved, so changing it in place afterwards is no error (as in PyTorch), and
  // the gradient is still right: d(sum(x * w))/dw_leaf = x.
  w.mul_(2);
  y.sum().backward();
  CHECK(max_abs_diff(w_leaf.grad(), x) == 0);

  // x was saved: changing it in place is still detected.
  Tensor w2 = w_leaf.clone();
  Tensor y2 = x * w2;
  x.add_(1);
  CHECK_THROWS_WITH_AS(y2.sum().backward(), doctest::Contains("modified by an inplace operation"), tg::Error);

  // Both inputs requiring grad: both saved, both gradients right.
  Tensor a = leaf({3}, 7), b = leaf({3}, 8);
  Tensor ab = a * b;
  auto* both = dynamic_cast<tg::autograd::generated::MulBackward0*>(ab.grad_fn().get());
  REQUIRE(both != nullptr);
  CHECK_FALSE(both->self_.was_default_constructed());
  CHECK_FALSE(both->other_.was_default_constructed());
  ab.sum().backward();
  CHECK(max_abs_diff(a.grad(), b.detach()) == 0);
  CHECK(max_abs_diff(b.grad(), a.detach()) == 0);
}
