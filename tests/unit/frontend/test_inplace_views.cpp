// In-place writes into views rebase the base's history (CopySlices), also when the base was
// made without autograd (Note [Views of tensors without autograd]): copy_, add_ and mul_ into
// narrow, select, slice, transpose and as_strided views, of bases with and without
// requires_grad, against finite differences.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include <tensorgen/tensorgen.h>

#include "autograd/gradcheck.h"

using tg::Tensor;
using tg::autograd::variable_list;

namespace {

using ViewFn = std::function<Tensor(const Tensor&)>;
using InplaceFn = std::function<void(const Tensor& view, const Tensor& y)>;

struct ViewCase {
  const char* name;
  ViewFn make;
  std::vector<int64_t> shape;  // the view's shape
};

std::vector<ViewCase> view_cases() {
  return {
      {"narrow", [](const Tensor& b) { return b.narrow(0, 1, 2); }, {2, 3}},
      {"select", [](const Tensor& b) { return b.select(1, 2); }, {4}},
      {"slice", [](const Tensor& b) { return b.slice(0, 0, 4, 2); }, {2, 3}},
      {"transpose", [](const Tensor& b) { return b.transpose(0, 1); }, {3, 4}},
      {"as_strided", [](const Tensor& b) { return b.as_strided({2, 2}, {3, 1}, 1); }, {2, 2}},
  };
}

std::vector<std::pair<const char*, InplaceFn>> inplace_cases() {
  return {
      {"copy_", [](const Tensor& v, const Tensor& y) { v.copy_(y * 3); }},
      {"add_", [](const Tensor& v, const Tensor& y) { v.add_(y); }},
      {"mul_", [](const Tensor& v, const Tensor& y) { v.mul_(y); }},
  };
}

// A base with distinct nonzero values and no autograd history.
Tensor plain_base() { return tg::arange(12, tg::kDouble).view({4, 3}) * 0.5 + 1; }
Tensor weights() { return tg::arange(12, tg::kDouble).view({4, 3}) * 0.25 - 1; }

}  // namespace

TEST_CASE("inplace_views: the issue's program gives y.grad() = [3, 3]") {
  Tensor y = tg::ones({2}, tg::requires_grad());
  Tensor w = tg::ones({4}, tg::requires_grad());
  Tensor buf = tg::zeros({4});
  buf.narrow(0, 0, 2).copy_(y * 3);
  REQUIRE(buf.grad_fn() != nullptr);
  CHECK(buf.grad_fn()->name() == "CopySlices");
  (buf * w).sum().backward();
  REQUIRE(y.grad().defined());
  CHECK(tg::equal(y.grad(), tg::tensor({3.f, 3.f})));
  CHECK(tg::equal(w.grad(), tg::tensor({3.f, 3.f, 0.f, 0.f})));
}

TEST_CASE("inplace_views: bases without requires_grad, every view and op, against gradcheck") {
  for (const ViewCase& view : view_cases()) {
    for (const auto& entry : inplace_cases()) {  // no structured binding: CAPTURE under clang 14
      const auto& op_name = entry.first;
      const auto& op = entry.second;
      CAPTURE(view.name);
      CAPTURE(op_name);
      tg::manual_seed(7);
      Tensor y = tg::randn(view.shape, tg::kDouble).requires_grad_();
      auto fn = [&, op = op](const variable_list& in) {
        Tensor base = plain_base();  // a fresh base without history on each call
        op(view.make(base), in[0]);
        return variable_list{base * weights()};
      };
      const auto result = tg::autograd::gradcheck(fn, {y});
      CHECK_MESSAGE(result.ok, result.message);
      // The base got the history, and the view follows it.
      Tensor base = plain_base();
      Tensor v = view.make(base);
      op(v, y);
      CHECK(base.requires_grad());
      CHECK(base.grad_fn()->name() == "CopySlices");
      CHECK(v.requires_grad());
    }
  }
}

TEST_CASE("inplace_views: non-leaf bases that require grad, every view and op, against gradcheck") {
  for (const ViewCase& view : view_cases()) {
    for (const auto& entry : inplace_cases()) {  // no structured binding: CAPTURE under clang 14
      const auto& op_name = entry.first;
      const auto& op = entry.second;
      CAPTURE(view.name);
      CAPTURE(op_name);
      tg::manual_seed(8);
      Tensor x = tg::randn({4, 3}, tg::kDouble).requires_grad_();
      Tensor y = tg::randn(view.shape, tg::kDouble).requires_grad_();
      auto fn = [&, op = op](const variable_list& in) {
        Tensor base = in[0] * 1.5;
        op(view.make(base), in[1]);
        return variable_list{base * weights()};
      };
      const auto result = tg::autograd::gradcheck(fn, {x, y});
      CHECK_MESSAGE(result.ok, result.message);
    }
  }
}

TEST_CASE("inplace_views: a view of a leaf that requires grad is refused, also if it was made before") {
  Tensor y = tg::ones({2}, tg::requires_grad());
  Tensor leaf = tg::zeros({4}, tg::requires_grad());
  CHECK_THROWS_WITH_AS(leaf.narrow(0, 0, 2).copy_(y), doctest::Contains("a view of a leaf Variable that requires grad"),
                       tg::Error);
  Tensor late = tg::zeros({4});
  Tensor early_view = late.narrow(0, 0, 2);  // made before late required grad
  late.requires_grad_();
  CHECK_THROWS_WITH_AS(early_view.copy_(y), doctest::Contains("a view of a leaf Variable that requires grad"),
                       tg::Error);
}

TEST_CASE("inplace_views: without anything requiring grad, nothing is recorded") {
  Tensor buf = tg::zeros({4});
  Tensor v = buf.narrow(0, 1, 2);
  v.copy_(tg::ones({2}));
  CHECK(buf.grad_fn() == nullptr);
  CHECK_FALSE(buf.requires_grad());
  CHECK(buf.sum().item<float>() == 2);
  CHECK(v.is_view());
  CHECK(v._base().is_same(buf));
}
