// tg::func::functional_call: a tg::nn module run with given parameters, under the transforms
// (per-sample gradients, Jacobians), checked against the module run directly with reverse-mode
// autograd or finite differences; and the module's own tensors restored afterwards.
#include <doctest/doctest.h>

#include <string>

#include <tensorgen/tensorgen.h>

#include "functorch/functional_call.h"
#include "transforms_test_helpers.h"

namespace {

using tg::Tensor;
namespace func = tg::func;
namespace nn = tg::nn;

using transforms_test::error_of;
using transforms_test::f64;
using transforms_test::max_diff;

nn::Sequential make_mlp() {
  tg::set_default_dtype(tg::kDouble);
  nn::Sequential mlp(nn::Linear(4, 6), nn::Tanh(), nn::Linear(6, 3));
  tg::set_default_dtype(tg::kFloat);
  return mlp;
}

const char* const kNames[] = {"0.weight", "0.bias", "2.weight", "2.bias"};

}  // namespace

TEST_CASE("functional_call: vmap(grad(functional_call)) gives per-sample gradients equal to a loop") {
  nn::Sequential mlp = make_mlp();
  func::NamedTensors own = func::named_tensors(*mlp);
  REQUIRE(own.size() == 4);
  Tensor xs = tg::randn({5, 4}, f64()), ys = tg::randn({5, 3}, f64());
  auto loss = [&](const Tensor& w0, const Tensor& b0, const Tensor& w2, const Tensor& b2, const Tensor& x,
                  const Tensor& y) {
    Tensor out = func::functional_call(mlp, {{"0.weight", w0}, {"0.bias", b0}, {"2.weight", w2}, {"2.bias", b2}},
                                       x.unsqueeze(0));
    return tg::mse_loss(out.squeeze(0), y, 1);
  };
  const std::vector<std::optional<int64_t>> in_dims{std::nullopt, std::nullopt, std::nullopt, std::nullopt, 0, 0};
  func::reset_vmap_fallbacks();
  for (int argnum = 0; argnum < 4; ++argnum) {
    Tensor per_sample = func::vmap(func::grad(loss, argnum), in_dims)(
        own.at("0.weight"), own.at("0.bias"), own.at("2.weight"), own.at("2.bias"), xs, ys);
    const Tensor& param = own.at(kNames[argnum]);
    REQUIRE(per_sample.dim() == param.dim() + 1);
    for (int64_t i = 0; i < 5; ++i) {
      // Independent: the module itself, reverse mode on its own parameter.
      Tensor l = tg::mse_loss(mlp->forward(xs.select(0, i).unsqueeze(0)).squeeze(0), ys.select(0, i), 1);
      Tensor expected = tg::autograd::grad({l}, {param})[0];
      CHECK(max_diff(per_sample.select(0, i), expected) < 1e-12);
    }
  }
  CHECK(func::vmap_fallback_count() == 0);
}

TEST_CASE("functional_call: jacrev of a module against finite differences, by input and by weight") {
  nn::Sequential mlp = make_mlp();
  func::NamedTensors own = func::named_tensors(*mlp);
  Tensor x = tg::randn({2, 4}, f64());
  Tensor w = own.at("0.weight").detach().clone();
  auto by_weight = [&](const Tensor& weight) { return func::functional_call(mlp, {{"0.weight", weight}}, x); };
  Tensor jac = func::jacrev(by_weight)(w);  // [2, 3, 6, 4]
  REQUIRE(jac.sizes() == tg::IntArrayRef({2, 3, 6, 4}));
  const double eps = 1e-6;
  Tensor u = tg::randn({6, 4}, f64());
  Tensor fd = (by_weight(w + eps * u) - by_weight(w - eps * u)) / (2 * eps);
  CHECK(max_diff((jac * u).sum({2, 3}), fd) < 1e-7);
  // By input, with the parameters a perturbed copy: the result follows the given weights.
  func::NamedTensors shifted;
  for (const auto& [name, t] : own) shifted[name] = t.detach() + 0.5;
  auto by_input = [&](const Tensor& input) { return func::functional_call(mlp, shifted, input); };
  Tensor jx = func::jacrev(by_input)(x);  // [2, 3, 2, 4]
  Tensor v = tg::randn({2, 4}, f64());
  Tensor fdx = (by_input(x + eps * v) - by_input(x - eps * v)) / (2 * eps);
  CHECK(max_diff((jx * v).sum({2, 3}), fdx) < 1e-7);
  CHECK(max_diff(by_input(x), mlp->forward(x)) > 1e-3);  // the shifted weights were used
}

TEST_CASE("functional_call: the module's own tensors are used afterwards, also after an exception") {
  nn::Sequential mlp = make_mlp();
  Tensor x = tg::randn({2, 4}, f64());
  Tensor before = mlp->forward(x).detach();
  func::NamedTensors zeros;
  for (const auto& [name, t] : func::named_tensors(*mlp)) zeros[name] = tg::zeros_like(t.detach());
  CHECK(max_diff(func::functional_call(mlp, zeros, x), tg::zeros({2, 3}, f64())) == 0);
  CHECK(max_diff(mlp->forward(x), before) == 0);
  // forward raises (an input of the wrong width) while the substitution is in place.
  CHECK(error_of([&] { func::functional_call(mlp, zeros, tg::randn({2, 5}, f64())); }) != "");
  CHECK(max_diff(mlp->forward(x), before) == 0);
  for (const auto& item : mlp->named_parameters()) {
    CHECK_FALSE(item.value().unsafeGetTensorImpl()->key_set().has(tg::DispatchKey::FuncTorchBatched));
  }
  // Nested calls: the inner substitution wins inside, the outer one is back after it.
  func::NamedTensors ones = zeros;
  ones["2.bias"] = tg::ones({3}, f64());
  Tensor inner;
  Tensor outer = func::functional_call(mlp, ones, x);
  {
    func::detail::SubstitutionGuard outer_guard(*mlp, ones);
    inner = func::functional_call(mlp, zeros, x);
    CHECK(max_diff(mlp->forward(x), outer) == 0);
  }
  CHECK(max_diff(inner, tg::zeros({2, 3}, f64())) == 0);
  CHECK(max_diff(outer, tg::ones({2, 3}, f64())) == 0);
  CHECK(max_diff(mlp->forward(x), before) == 0);
}

TEST_CASE("functional_call: bad names, shapes and dtypes are errors naming functional_call") {
  nn::Sequential mlp = make_mlp();
  Tensor x = tg::randn({2, 4}, f64());
  std::string unknown = error_of([&] { func::functional_call(mlp, {{"1.weight", tg::zeros({6, 4}, f64())}}, x); });
  CHECK(unknown.find("[functional_call] the module has no parameter or buffer named '1.weight'") != std::string::npos);
  CHECK(unknown.find("0.weight") != std::string::npos);  // lists what there is
  std::string shape = error_of([&] { func::functional_call(mlp, {{"0.weight", tg::zeros({4, 6}, f64())}}, x); });
  CHECK(shape.find("[functional_call] expected '0.weight' of shape [6, 4]") != std::string::npos);
  std::string dtype = error_of([&] { func::functional_call(mlp, {{"0.bias", tg::zeros({6})}}, x); });
  CHECK(dtype.find("of dtype") != std::string::npos);
  Tensor before = mlp->forward(x).detach();
  // A failed check leaves nothing substituted.
  error_of([&] { func::functional_call(mlp, {{"0.bias", tg::zeros({6}, f64())}, {"bad", x}}, x); });
  CHECK(max_diff(mlp->forward(x), before) == 0);
}
