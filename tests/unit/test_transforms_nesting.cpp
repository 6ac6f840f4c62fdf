// Nestings of the tg::func transforms (jvp(jvp), grad(vmap), vmap(jacrev), jacfwd(jacrev)) on
// non-trivial functions, checked against finite differences or loops of plain calls; levels kept
// apart (an escaped wrapper names its transform); in-place writes into captured tensors refused.
#include <doctest/doctest.h>

#include <string>

#include <tensorgen/tensorgen.h>
#include "transforms_test_helpers.h"

namespace {

using tg::Tensor;
namespace func = tg::func;

using transforms_test::error_of;
using transforms_test::f64;
using transforms_test::max_diff;

// A non-trivial scalar function of a vector: sum(tanh(W x + b)^2 * sigmoid(x[:3])) + (x.x)^2 / 10.
struct Scalar {
  Tensor w = tg::randn({3, 4}, f64()), b = tg::randn({3}, f64());
  Tensor operator()(const Tensor& x) const {
    Tensor h = tg::tanh(w.mm(x.unsqueeze(1)).squeeze(1) + b);
    Tensor r = (h * h * tg::sigmoid(x.narrow(0, 0, 3))).sum();
    Tensor n = (x * x).sum();
    return r + n * n / 10;
  }
};

// A vector function R^4 -> R^3.
struct Vector {
  Tensor w = tg::randn({3, 4}, f64());
  Tensor operator()(const Tensor& x) const { return tg::sigmoid(w.mm(x.unsqueeze(1)).squeeze(1)) * x.sum(); }
};

constexpr double kEps = 1e-5;

}  // namespace

TEST_CASE("nesting: jvp(jvp(f)) is the second directional derivative, against finite differences") {
  Scalar f;
  Tensor x = tg::randn({4}, f64()), u = tg::randn({4}, f64()), v = tg::randn({4}, f64());
  auto directional = [&](const Tensor& at) {  // d/ds f(at + s u)
    return func::jvp([&](const std::vector<Tensor>& a) { return f(a[0]); }, {at}, {u}).second;
  };
  auto [first, second] = func::jvp([&](const std::vector<Tensor>& a) { return directional(a[0]); }, {x}, {v});
  CHECK(std::abs(first.item<double>() - directional(x).item<double>()) < 1e-12);
  const double fd = ((directional(x + kEps * v) - directional(x - kEps * v)) / (2 * kEps)).item<double>();
  CHECK(std::abs(second.item<double>() - fd) < 1e-6);
  // The same as u^T H v with the Hessian of jacfwd(jacrev).
  Tensor h = func::hessian(f)(x);
  CHECK(std::abs(second.item<double>() - u.unsqueeze(0).mm(h).mm(v.unsqueeze(1)).item<double>()) < 1e-10);
}

TEST_CASE("nesting: grad(vmap(f)) equals the sum of per-sample gradients, and finite differences") {
  Scalar f;
  Tensor xs = tg::randn({5, 4}, f64());
  auto total = [&](const Tensor& batch) { return func::vmap(f)(batch).sum(); };
  func::reset_vmap_fallbacks();
  Tensor g = func::grad(total)(xs);
  CHECK(func::vmap_fallback_count() == 0);
  for (int64_t i = 0; i < 5; ++i) CHECK(max_diff(g.select(0, i), func::grad(f)(xs.select(0, i))) < 1e-12);
  Tensor u = tg::randn({5, 4}, f64());
  const double fd = ((total(xs + kEps * u) - total(xs - kEps * u)) / (2 * kEps)).item<double>();
  CHECK(std::abs((g * u).sum().item<double>() - fd) < 1e-6);
  // By an unbatched weight: grad over the parameter of a vmapped loss.
  auto by_weight = [&](const Tensor& w) {
    return func::vmap([&](const Tensor& x, const Tensor& weight) { return tg::tanh(weight.mm(x.unsqueeze(1))).sum(); },
                      {0, std::nullopt})(xs, w)
        .pow(2)
        .sum();
  };
  Tensor w = tg::randn({3, 4}, f64()), dw = tg::randn({3, 4}, f64());
  Tensor gw = func::grad(by_weight)(w);
  const double fdw = ((by_weight(w + kEps * dw) - by_weight(w - kEps * dw)) / (2 * kEps)).item<double>();
  CHECK(std::abs((gw * dw).sum().item<double>() - fdw) < 1e-6);
}

TEST_CASE("nesting: vmap(jacrev(f)) gives per-sample Jacobians equal to a loop, and finite differences") {
  Vector f;
  Tensor xs = tg::randn({4, 4}, f64());
  func::reset_vmap_fallbacks();
  Tensor jacs = func::vmap(func::jacrev(f))(xs);
  CHECK(func::vmap_fallback_count() == 0);
  REQUIRE(jacs.sizes() == tg::IntArrayRef({4, 3, 4}));
  for (int64_t i = 0; i < 4; ++i) {
    Tensor x = xs.select(0, i);
    CHECK(max_diff(jacs.select(0, i), func::jacrev(f)(x)) < 1e-12);
    Tensor u = tg::randn({4}, f64());
    Tensor fd = (f(x + kEps * u) - f(x - kEps * u)) / (2 * kEps);
    CHECK(max_diff(jacs.select(0, i).mm(u.unsqueeze(1)).squeeze(1), fd) < 1e-6);
  }
  // vmap(jacfwd) agrees.
  CHECK(max_diff(func::vmap(func::jacfwd(f))(xs), jacs) < 1e-12);
}

TEST_CASE("nesting: jacfwd(jacrev(f)) of a vector function against finite differences of jacrev") {
  Vector f;
  Tensor x = tg::randn({4}, f64()), u = tg::randn({4}, f64());
  Tensor second = func::jacfwd(func::jacrev(f))(x);  // [3, 4, 4]
  REQUIRE(second.sizes() == tg::IntArrayRef({3, 4, 4}));
  Tensor fd = (func::jacrev(f)(x + kEps * u) - func::jacrev(f)(x - kEps * u)) / (2 * kEps);
  CHECK(max_diff((second * u).sum(2), fd) < 1e-6);
  // Symmetric in the last two dims, as second derivatives are; jacrev(jacrev) agrees.
  CHECK(max_diff(second, second.transpose(1, 2)) < 1e-10);
  CHECK(max_diff(func::jacrev(func::jacrev(f))(x), second) < 1e-10);
}

TEST_CASE("nesting: a BatchedTensor escaping its vmap inside grad or jvp is an error naming vmap") {
  Tensor xs = tg::randn({3, 4}, f64());
  Tensor escaped;
  func::grad([&](const Tensor& batch) {
    return func::vmap([&](const Tensor& x) {
             escaped = x;
             return (x * x).sum();
           })(batch)
        .sum();
  })(xs);
  std::string message = error_of([&] { (void)(escaped * 2); });
  CHECK(message.find("[vmap]") != std::string::npos);
  CHECK(message.find("escaped the vmap") != std::string::npos);
  func::jvp(
      [&](const std::vector<Tensor>& a) {
        return func::vmap([&](const Tensor& x) {
          escaped = x;
          return x.sum();
        })(a[0]);
      },
      {xs}, {tg::ones_like(xs)});
  CHECK(error_of([&] { (void)escaped.sum(); }).find("escaped the vmap") != std::string::npos);
  // A dual tensor escaping jvp keeps its value and loses the tangent of the level that exited.
  Tensor dual_escaped;
  func::jvp(
      [&](const std::vector<Tensor>& a) {
        dual_escaped = a[0] * 2;
        return dual_escaped.sum();
      },
      {xs}, {tg::ones_like(xs)});
  tg::autograd::forward_ad::dual_level level;
  CHECK_FALSE(tg::autograd::forward_ad::unpack_dual(dual_escaped).tangent.defined());
  CHECK(max_diff(dual_escaped, xs * 2) == 0);
}

TEST_CASE("captured mutation: grad, vjp and jvp refuse an in-place write into a captured tensor") {
  Tensor x = tg::randn({4}, f64());
  Tensor captured = tg::zeros({4}, f64());
  std::string g = error_of([&] { func::grad([&](const Tensor& t) { return captured.add_(t).sum(); })(x); });
  CHECK(g.find("[grad] add_") != std::string::npos);
  CHECK(g.find("captured from outside the transform") != std::string::npos);
  std::string v = error_of([&] { func::vjp([&](const Tensor& t) { return captured.mul_(t); }, x); });
  CHECK(v.find("[vjp] mul_") != std::string::npos);
  std::string j = error_of([&] {
    func::jvp([&](const std::vector<Tensor>& a) { return captured.copy_(a[0]).sum(); }, {x}, {tg::ones_like(x)});
  });
  CHECK(j.find("[jvp] copy_") != std::string::npos);
  CHECK(max_diff(captured, tg::zeros({4}, f64())) == 0);  // refused before writing
  // A write that involves no differentiated value is refused too, as in functorch: no argument
  // has history, yet the write happens inside the transform.
  Tensor counter = tg::ones({4}, f64());
  std::string z = error_of([&] { func::grad([&](const Tensor& t) { counter.zero_(); return t.sum(); })(x); });
  CHECK(z.find("[grad] zero_") != std::string::npos);
  std::string a = error_of([&] { func::grad([&](const Tensor& t) { counter.add_(1.0); return t.sum(); })(x); });
  CHECK(a.find("[grad] add_") != std::string::npos);
  std::string f = error_of([&] {
    func::jvp([&](const std::vector<Tensor>& in) { counter.fill_(3.0); return in[0] * 2; }, {x}, {tg::ones_like(x)});
  });
  CHECK(f.find("[jvp] fill_") != std::string::npos);
  CHECK(max_diff(counter, tg::ones({4}, f64())) == 0);
  // Under vmap the innermost grad still refuses it.
  Tensor xs = tg::randn({3, 4}, f64());
  std::string vg = error_of([&] { func::vmap(func::grad([&](const Tensor& t) { return captured.add_(t).sum(); }))(xs); });
  CHECK(vg.find("captured") != std::string::npos);
  // A tensor created inside the transform may be written in place, and its gradient is right.
  Tensor gin = func::grad([&](const Tensor& t) {
    Tensor buffer = tg::zeros({4}, f64());
    buffer.add_(t * t);
    return buffer.sum();
  })(x);
  CHECK(max_diff(gin, 2 * x) < 1e-12);
  // Outside any transform the same write is allowed.
  Tensor y = tg::randn({4}, f64());
  captured.add_(y);
  CHECK(max_diff(captured, y) == 0);
}
