// Custom autograd functions: tg::autograd::Function<T> with AutogradContext, as in LibTorch's
// test/cpp/api/autograd.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include <tensorgen/tensorgen.h>

#include "autograd/gradcheck.h"

using namespace tg::autograd;
using tg::Tensor;

namespace {

struct MyFunction : public Function<MyFunction> {
  static Variable forward(AutogradContext* ctx, Variable var1, int mul, Variable var2) {
    ctx->saved_data["mul"] = mul;
    ctx->save_for_backward({var1, var2});
    return var1 + mul * var2 + var1 * var2;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_output) {
    const int64_t mul = ctx->saved_data["mul"].toInt();
    auto saved = ctx->get_saved_variables();
    auto var1 = saved[0];
    auto var2 = saved[1];
    return {grad_output[0] + grad_output[0] * var2, Variable(), grad_output[0] * mul + grad_output[0] * var1};
  }
};

struct Cube : public Function<Cube> {
  static Variable forward(AutogradContext* ctx, Variable x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad) {
    Variable x = ctx->get_saved_variables()[0];
    return {grad[0] * 3 * x * x};
  }
};

struct DoubleInPlace : public Function<DoubleInPlace> {
  static Variable forward(AutogradContext* ctx, Variable x) {
    x.mul_(2);
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext*, variable_list grad) { return {grad[0] * 2}; }
};

struct SortLike : public Function<SortLike> {
  static variable_list forward(AutogradContext* ctx, Variable x) {
    Tensor order = tg::tensor({1, 0});
    ctx->mark_non_differentiable({order});
    ctx->saved_data["needs"] = ctx->needs_input_grad(0);
    return {x * 2, order};
  }
  static variable_list backward(AutogradContext*, variable_list grad) { return {grad[0] * 2}; }
};

int undefined_grads_seen = 0;
struct TwoOutputs : public Function<TwoOutputs> {
  static variable_list forward(AutogradContext* ctx, Variable x) {
    ctx->set_materialize_grads(false);
    return {x * 1, x * 1};
  }
  static variable_list backward(AutogradContext*, variable_list grad) {
    undefined_grads_seen += static_cast<int>(!grad[0].defined()) + static_cast<int>(!grad[1].defined());
    return {grad[0].defined() ? grad[0] : grad[1]};
  }
};

struct WrongCount : public Function<WrongCount> {
  static Variable forward(AutogradContext*, Variable x, Variable y) { return x * y; }
  static variable_list backward(AutogradContext*, variable_list grad) { return {grad[0]}; }
};

}  // namespace

TEST_CASE("custom_function: LibTorch's CustomFunction test") {
  Variable x = tg::randn({5, 5}, tg::requires_grad());
  Variable y = tg::randn({5, 5}, tg::requires_grad());
  auto res = MyFunction::apply(x, 2, y);
  auto go = tg::ones({}, tg::requires_grad());
  res.sum().backward(go, false, true);
  CHECK(tg::allclose(x.grad(), y + tg::ones({5, 5})));
  CHECK(tg::allclose(y.grad(), x + tg::ones({5, 5}) * 2));
  CHECK(res.grad_fn()->name().find("MyFunction") != std::string::npos);
  // create_graph on leaves makes each grad hold a graph that holds the leaf's AccumulateGrad:
  // a reference cycle, in LibTorch too. Break it, as LibTorch's docs advise, so nothing leaks.
  x.mutable_grad() = Tensor();
  y.mutable_grad() = Tensor();
}

TEST_CASE("custom_function: gradients match finite differences, and saved tensors are freed") {
  Tensor x = tg::randn({3}, tg::kDouble).requires_grad_();
  auto fn = [](const variable_list& in) { return variable_list{Cube::apply(in[0])}; };
  CHECK(gradcheck(fn, {x}).ok);
  Tensor y = Cube::apply(x);
  y.sum().backward();
  CHECK_THROWS_WITH_AS(y.sum().backward(), doctest::Contains("backward through the graph a second time"), tg::Error);
  // Without grad, apply just runs forward.
  Tensor plain = Cube::apply(tg::ones({2}));
  CHECK(plain.grad_fn() == nullptr);
}

TEST_CASE("custom_function: mark_dirty, mark_non_differentiable, needs_input_grad, materialize_grads") {
  Tensor leaf = tg::ones({2}, tg::requires_grad());
  Tensor x = leaf * 1;
  Tensor out = DoubleInPlace::apply(x);
  CHECK(out.is_same(x));
  CHECK(x.grad_fn()->name().find("DoubleInPlace") != std::string::npos);
  out.sum().backward();
  CHECK(tg::equal(leaf.grad(), tg::tensor({2.f, 2.f})));

  Tensor z = tg::ones({2}, tg::requires_grad());
  variable_list outs = SortLike::apply(z);
  CHECK(outs[0].requires_grad());
  CHECK_FALSE(outs[1].requires_grad());
  outs[0].sum().backward();
  CHECK(tg::equal(z.grad(), tg::tensor({2.f, 2.f})));

  Tensor w = tg::ones({2}, tg::requires_grad());
  variable_list two = TwoOutputs::apply(w);
  two[0].sum().backward();
  CHECK(undefined_grads_seen == 1);
  CHECK(tg::equal(w.grad(), tg::ones({2})));
}

TEST_CASE("custom_function: a backward with the wrong number of gradients is an error") {
  Tensor a = tg::ones({2}, tg::requires_grad());
  Tensor b = tg::ones({2}, tg::requires_grad());
  CHECK_THROWS_WITH_AS(WrongCount::apply(a, b).sum().backward(),
                       doctest::Contains("returned an incorrect number of gradients (expected 2, got 1)"), tg::Error);
}
