// Forward-mode AD (dual tensors) and the tg::func transforms: each result is checked against
// an independent computation (a closed form, finite differences, the reverse-mode engine or a
// loop of plain calls), and each misuse against its error message.
#include <doctest/doctest.h>

#include <string>

#include <tensorgen/tensorgen.h>

#include "autograd/forward_ad.h"
#include "functorch/transforms.h"
#include "transforms_test_helpers.h"

namespace {

using tg::Tensor;
namespace fwd = tg::autograd::forward_ad;
namespace func = tg::func;

using transforms_test::error_of;
using transforms_test::f64;
using transforms_test::max_diff;

// A small MLP loss over one sample: sum((tanh(x W1 + b1) W2)^2) / 2.
struct Mlp {
  Tensor w1 = tg::randn({4, 5}, f64()), b1 = tg::randn({5}, f64()), w2 = tg::randn({5, 3}, f64());
  Tensor operator()(const Tensor& x) const {
    Tensor h = tg::tanh(tg::addmm(b1, x.unsqueeze(0), w1)).squeeze(0);
    Tensor y = h.unsqueeze(0).mm(w2);
    return (y * y).sum() / 2;
  }
};

}  // namespace

TEST_CASE("autograd: an out= overload refuses a tangent or requires_grad on any differentiable input") {
  // where.self_out's differentiable inputs are self and other (positions 1 and 2); the out
  // overloads' Autograd kernel checks exactly those (autograd::OutVariantKernel).
  Tensor condition = tg::ones({2}, tg::kBool), a = tg::ones({2}, f64()), b = tg::zeros({2}, f64());
  Tensor out = tg::empty({2}, f64());
  CHECK(error_of([&] { tg::where_out(out, condition, a, b.clone().requires_grad_()); })
            .rfind("where(): functions with out=... arguments don't support automatic differentiation, but one of "
                   "the arguments requires grad.", 0) == 0);
  {
    fwd::dual_level level;
    CHECK(error_of([&] { tg::where_out(out, condition, a, fwd::make_dual(b, tg::ones_like(b))); })
              .rfind("[where.self_out] forward-mode AD (a tangent) is not implemented: out= variants do not "
                     "propagate tangents", 0) == 0);
    tg::where_out(out, condition, a, b);  // no tangent, no error
  }
  CHECK(tg::equal(out, a));
}

TEST_CASE("forward_ad: make_dual and unpack_dual carry a tangent through generated formulas") {
  Tensor x = tg::randn({3, 4}, f64()), t = tg::randn({3, 4}, f64());
  fwd::dual_level level;
  Tensor dual = fwd::make_dual(x, t);
  Tensor y = dual * dual + tg::exp(dual).sum(1, true);  // broadcast of a reduction
  auto [primal, tangent] = fwd::unpack_dual(y);
  CHECK(max_diff(primal, x * x + tg::exp(x).sum(1, true)) < 1e-12);
  Tensor expected = 2 * x * t + (tg::exp(x) * t).sum(1, true);
  REQUIRE(tangent.defined());
  CHECK(max_diff(tangent, expected) < 1e-12);
  CHECK_FALSE(fwd::unpack_dual(primal).tangent.defined());  // the primal view drops it
}

TEST_CASE("forward_ad: tangents vanish when their level exits, and misuse is an error") {
  Tensor x = tg::randn({3}, f64());
  Tensor y;
  {
    fwd::dual_level level;
    y = tg::relu(fwd::make_dual(x, tg::ones_like(x)));
    CHECK(fwd::unpack_dual(y).tangent.defined());
  }
  {
    fwd::dual_level level;  // a new level does not see the old tangent
    CHECK_FALSE(fwd::unpack_dual(y).tangent.defined());
  }
  CHECK(error_of([&] { fwd::make_dual(x, x); }).find("no dual level is active") != std::string::npos);
  fwd::dual_level level;
  CHECK(error_of([&] { fwd::make_dual(x, tg::ones({4}, f64())); }).find("[make_dual] expected a tangent of the "
                                                                          "primal's shape") != std::string::npos);
  // An operator whose schema says forward: not_implemented refuses a dual input.
  Tensor g = tg::randn({2, 3}, f64()), out = tg::softmax(tg::randn({2, 3}, f64()), 1);
  Tensor dual = fwd::make_dual(g, tg::ones_like(g));
  CHECK(error_of([&] { tg::_softmax_backward_data(dual, out, 1, tg::kDouble); }).find("forward-mode AD") !=
        std::string::npos);
}

TEST_CASE("forward_ad: an exiting level frees the tangents it gave, so forward-over-reverse leaves no cycle") {
  Tensor x = tg::randn({3}, f64()), t = tg::randn({3}, f64());
  Tensor dual;
  {
    fwd::dual_level level;
    dual = fwd::make_dual(x, t);
    CHECK(t.use_count() == 2);  // the dual's tangent holds t
  }
  // Freed at exit, not at the dual's next write: a tangent whose history saved the dual itself
  // (a saved output's tangent under jacfwd(jacrev(f))) would otherwise keep both alive forever.
  CHECK(t.use_count() == 1);
  CHECK(dual.defined());
}

TEST_CASE("func::jvp matches central finite differences on an MLP") {
  Mlp f;
  Tensor x = tg::randn({4}, f64()), u = tg::randn({4}, f64());
  auto [value, tangent] = func::jvp([&](const std::vector<Tensor>& a) { return f(a[0]); }, {x}, {u});
  const double eps = 1e-6;
  double fd = ((f(x + eps * u) - f(x - eps * u)) / (2 * eps)).item<double>();
  CHECK(std::abs(value.item<double>() - f(x).item<double>()) < 1e-12);
  CHECK(std::abs(tangent.item<double>() - fd) < 1e-6);
}

TEST_CASE("func::grad, grad_and_value and vjp agree with the closed form; grad nests") {
  Tensor x = tg::randn({5}, f64());
  auto cube = [](const Tensor& t) { return (t * t * t).sum(); };
  CHECK(max_diff(func::grad(cube)(x), 3 * x * x) < 1e-12);
  auto [g, v] = func::grad_and_value(cube)(x);
  CHECK(max_diff(g, 3 * x * x) < 1e-12);
  CHECK(std::abs(v.item<double>() - cube(x).item<double>()) < 1e-12);
  // d/dx of sum(d/dx sum(x^3)) = 6x: grad of grad.
  auto inner = func::grad(cube);
  CHECK(max_diff(func::grad([&](const Tensor& t) { return inner(t).sum(); })(x), 6 * x) < 1e-10);
  Tensor w = tg::randn({3, 5}, f64()), c = tg::randn({3}, f64());
  auto result = func::vjp([&](const Tensor& t) { return w.mm(t.unsqueeze(1)).squeeze(1); }, x);
  CHECK(max_diff(result.vjp_fn(c)[0], w.t().mm(c.unsqueeze(1)).squeeze(1)) < 1e-12);
  CHECK(error_of([&] { func::grad([](const Tensor& t) { return t * 2; })(x); })
            .find("[grad] expected the function to return a tensor of one element") != std::string::npos);
}

TEST_CASE("func::jacrev and jacfwd give the closed-form Jacobian; hessian is forward over reverse") {
  Tensor w = tg::randn({3, 4}, f64()), b = tg::randn({3}, f64()), x = tg::randn({4}, f64());
  auto f = [&](const Tensor& t) { return tg::tanh(w.mm(t.unsqueeze(1)).squeeze(1) + b); };
  Tensor y = f(x);
  Tensor expected = (1 - y * y).unsqueeze(1) * w;  // diag(1 - y^2) W
  func::reset_vmap_fallbacks();
  CHECK(max_diff(func::jacrev(f)(x), expected) < 1e-12);
  CHECK(max_diff(func::jacfwd(f)(x), expected) < 1e-12);
  auto cube = [](const Tensor& t) { return (t * t * t).sum(); };
  Tensor h = func::hessian(cube)(x);
  Tensor eye = tg::eq(tg::arange(4).unsqueeze(1), tg::arange(4).unsqueeze(0)).to(tg::kDouble);
  CHECK(max_diff(h, eye * (6 * x).unsqueeze(0)) < 1e-10);
  CHECK(func::vmap_fallback_count() == 0);
}

TEST_CASE("func::vmap equals a loop, over leading and non-leading dims, and nests") {
  func::reset_vmap_fallbacks();
  Tensor xs = tg::randn({3, 4, 5}, f64()), w = tg::randn({5, 2}, f64()), bias = tg::randn({2}, f64());
  auto f = [&](const Tensor& x) { return tg::relu(x.mm(w) + bias).sum(0) * x.mean(); };
  Tensor batched = func::vmap(f)(xs);
  std::vector<Tensor> rows;
  for (int64_t i = 0; i < 3; ++i) rows.push_back(f(xs.select(0, i)));
  CHECK(max_diff(batched, tg::stack(rows, 0)) < 1e-12);
  // in_dims on a non-leading dim, out_dims moved.
  Tensor xt = xs.transpose(0, 1).contiguous();  // [4, 3, 5]: the batch is dim 1
  Tensor moved = func::vmap(f, {1}, 1)(xt);
  CHECK(max_diff(moved, tg::stack(rows, 1)) < 1e-12);
  // vmap(vmap(f)) over a [2, 3] batch of [4, 5] samples.
  Tensor xss = tg::randn({2, 3, 4, 5}, f64());
  Tensor nested = func::vmap(func::vmap(f))(xss);
  CHECK(max_diff(nested.select(0, 1).select(0, 2), f(xss.select(0, 1).select(0, 2))) < 1e-12);
  // chunk_size gives the same result.
  CHECK(max_diff(func::vmap(f, {}, 0, 2)(xs), batched) < 1e-12);
  CHECK(func::vmap_fallback_count() == 0);
}

TEST_CASE("func::vmap(grad(f)) gives per-sample gradients equal to a loop of grad calls") {
  Mlp f;
  Tensor xs = tg::randn({6, 4}, f64());
  func::reset_vmap_fallbacks();
  Tensor per_sample = func::vmap(func::grad(f))(xs);
  CHECK(func::vmap_fallback_count() == 0);
  for (int64_t i = 0; i < 6; ++i) CHECK(max_diff(per_sample.select(0, i), func::grad(f)(xs.select(0, i))) < 1e-12);
}

namespace {
// sum(tanh(x W)^2) for one sample x: the loss of the per-sample gradient tests.
Tensor tanh_layer_loss(const Tensor& x, const Tensor& weight) {
  Tensor y = tg::tanh(x.unsqueeze(0).mm(weight));
  return (y * y).sum();
}
}  // namespace

TEST_CASE("func::vmap(grad) over data gives per-sample gradients of an unbatched weight") {
  Tensor xs = tg::randn({5, 4}, f64()), w = tg::randn({4, 3}, f64());
  auto loss = tanh_layer_loss;
  func::reset_vmap_fallbacks();
  Tensor grads = func::vmap(func::grad(loss, 1), {0, std::nullopt})(xs, w);
  CHECK(func::vmap_fallback_count() == 0);
  REQUIRE(grads.sizes() == tg::IntArrayRef({5, 4, 3}));
  for (int64_t i = 0; i < 5; ++i) CHECK(max_diff(grads.select(0, i), func::grad(loss, 1)(xs.select(0, i), w)) < 1e-12);
}

// At the benchmark's size (float, batch 64, 128 -> 256): the forward is a bmm with the weight
// broadcast over the batch and the gradient 64 outer products of 8 MiB in all, the CPU bmm's
// stacked-rows and streaming rank-1 paths (kernels/cpu/linalg_kernels.cpp). The closed form
// x_i^T (2 y_i (1 - y_i^2)) is built with broadcasting multiplies, no product kernel.
TEST_CASE("func::vmap(grad) per-sample gradients at bench size equal the closed form") {
  const int64_t batch = 64, in = 128, hidden = 256;
  Tensor xs = tg::randn({batch, in}), w = tg::randn({in, hidden}) * 0.05;
  auto loss = tanh_layer_loss;
  func::reset_vmap_fallbacks();
  Tensor grads = func::vmap(func::grad(loss, 1), {0, std::nullopt})(xs, w);
  CHECK(func::vmap_fallback_count() == 0);
  REQUIRE(grads.sizes() == tg::IntArrayRef({batch, in, hidden}));
  Tensor xs64 = xs.to(tg::kDouble), w64 = w.to(tg::kDouble);
  Tensor y = tg::tanh((xs64.unsqueeze(2) * w64.unsqueeze(0)).sum(1));  // [batch, hidden]
  Tensor expected = xs64.unsqueeze(2) * (2 * y * (1 - y * y)).unsqueeze(1);
  CHECK(max_diff(grads.to(tg::kDouble), expected) < 1e-4);
  for (int64_t i : {0, 31, 63}) {
    CHECK(max_diff(func::grad(loss, 1)(xs.select(0, i), w).to(tg::kDouble), expected.select(0, i)) < 1e-4);
  }
}

TEST_CASE("func::vmap counts the loop fallback of an operator without a batching rule") {
  func::reset_vmap_fallbacks();
  Tensor xs = tg::randn({3, 4}, f64());
  // as_strided reads raw strides: no batching rule, so it runs once per sample.
  auto f = [](const Tensor& x) { return x.as_strided({2}, {2}); };
  Tensor out = func::vmap(f)(xs);
  for (int64_t i = 0; i < 3; ++i) CHECK(max_diff(out.select(0, i), f(xs.select(0, i)).contiguous()) < 1e-12);
  auto counts = func::vmap_fallbacks();
  REQUIRE(counts.size() == 1);
  CHECK(counts[0].first == "tg::as_strided");
  CHECK(counts[0].second == 1);
}

TEST_CASE("func::vmap keeps levels apart: escaped wrappers and writes into captured tensors are errors") {
  Tensor xs = tg::randn({3, 4}, f64());
  Tensor escaped;
  func::vmap([&](const Tensor& x) {
    escaped = x;
    return x * 2;
  })(xs);
  CHECK(error_of([&] { (void)(escaped + 1); }).find("escaped the vmap") != std::string::npos);
  Tensor captured = tg::zeros({4}, f64());
  std::string message = error_of([&] { func::vmap([&](const Tensor& x) { return captured.add_(x); })(xs); });
  CHECK(message.find("[vmap]") != std::string::npos);
  CHECK(message.find("captured") != std::string::npos);
  CHECK(error_of([&] { func::vmap([](const Tensor& a, const Tensor& b) { return a + b; })(xs, tg::ones({2, 4}, f64())); })
            .find("same size along its in_dim") != std::string::npos);
}
