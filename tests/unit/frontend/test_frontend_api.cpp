// The small LibTorch API pieces: Variable, allclose/isclose/equal, tg::tensor of scalars and
// nested lists, to(other), set_data, is_variable, str, ExpandingArray; factories honour
// requires_grad; a fresh tensor's version is 0.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include <tensorgen/tensorgen.h>

using tg::Tensor;

TEST_CASE("frontend_api: allclose, isclose and equal") {
  Tensor a = tg::tensor({1.0, 2.0, INFINITY, NAN});
  Tensor b = tg::tensor({1.0 + 1e-9, 2.1, INFINITY, NAN});
  CHECK(tg::equal(tg::isclose(a, b), tg::tensor({true, false, true, false})));
  CHECK(tg::equal(tg::isclose(a, b, 1e-5, 1e-8, true), tg::tensor({true, false, true, true})));
  CHECK(tg::allclose(a.narrow(0, 0, 1), b.narrow(0, 0, 1)));
  CHECK_FALSE(tg::allclose(a, b));
  CHECK(tg::allclose(a, b, 0.1, 0, true));
  CHECK(tg::equal(tg::ones({2, 2}), tg::ones({2, 2})));
  CHECK_FALSE(tg::equal(tg::ones({2, 2}), tg::ones({4})));
  CHECK_FALSE(tg::equal(a, a));  // NaN != NaN
  CHECK_THROWS_WITH_AS(tg::isclose(tg::ones({1}), tg::ones({1}, tg::kDouble)), doctest::Contains("did not match"),
                       tg::Error);
}

TEST_CASE("frontend_api: tg::tensor of a scalar, nested lists and mixed values") {
  Tensor scalar = tg::tensor(1.5f);
  CHECK(scalar.dim() == 0);
  CHECK(scalar.scalar_type() == tg::kFloat);
  CHECK(scalar.item<float>() == 1.5f);
  Tensor matrix = tg::tensor({{1, 2, 3}, {4, 5, 6}});
  CHECK(matrix.sizes() == tg::IntArrayRef({2, 3}));
  CHECK(matrix.scalar_type() == tg::kLong);
  CHECK(matrix[1][2].item<int64_t>() == 6);
  Tensor cube = tg::tensor({{{1.f}, {2.f}}, {{3.f}, {4.f}}}, tg::kDouble);
  CHECK(cube.sizes() == tg::IntArrayRef({2, 2, 1}));
  CHECK(cube.scalar_type() == tg::kDouble);
  Tensor mixed = tg::tensor({1, 2.5});
  CHECK(tg::is_floating_type(mixed.scalar_type()));
  CHECK_THROWS_WITH_AS(tg::tensor({{1, 2}, {3}}), doctest::Contains("Expected all sub-lists to have sizes"), tg::Error);
}

TEST_CASE("frontend_api: Variable, to(other), set_data, is_variable, str, ExpandingArray") {
  tg::autograd::Variable v = tg::ones({2});
  CHECK(v.is_variable());
  Tensor d = tg::zeros({1}, tg::kDouble);
  CHECK(v.to(d).scalar_type() == tg::kDouble);

  Tensor w = tg::ones({3}, tg::requires_grad());
  {
    tg::NoGradGuard no_grad;
    w.set_data(tg::full({5}, 2.0f));
  }
  CHECK(w.sizes() == tg::IntArrayRef({5}));
  CHECK(w.requires_grad());
  CHECK(w.sum().item<float>() == 10);
  CHECK_THROWS_WITH_AS(w.set_data(tg::ones({2}, tg::kDouble)), doctest::Contains("[set_data]"), tg::Error);

  CHECK(tg::str("a", 1, '-', 2.5) == "a1-2.5");
  tg::ExpandingArray<2> repeated(3);
  CHECK((*repeated)[0] == 3);
  CHECK((*repeated)[1] == 3);
  tg::ExpandingArray<3> given({1, 2, 3});
  CHECK(given->at(2) == 3);
  CHECK(tg::IntArrayRef(given).size() == 3);
  CHECK_THROWS_WITH_AS(tg::ExpandingArray<2>({1, 2, 3}), doctest::Contains("Expected 2 values, but instead got 3"),
                       tg::Error);
}

TEST_CASE("frontend_api: factories honour requires_grad or refuse it") {
  std::vector<Tensor> made = {
      tg::ones({2, 2}, tg::requires_grad()),
      tg::zeros({2}, tg::requires_grad()),
      tg::randn({2}, tg::requires_grad()),
      tg::rand({2}, tg::requires_grad()),
      tg::empty({2}, tg::requires_grad()),
      tg::full({2}, 1.5, tg::requires_grad()),
      tg::tensor({1.f, 2.f}, tg::requires_grad()),
      tg::tensor({{1.f}, {2.f}}, tg::requires_grad()),
      tg::ones_like(tg::ones({2}), tg::requires_grad()),
      tg::zeros_like(tg::ones({2}), tg::requires_grad()),
  };
  float blob[] = {1, 2};
  made.push_back(tg::from_blob(blob, {2}, tg::requires_grad()));
  for (const Tensor& t : made) {
    CHECK(t.requires_grad());
    CHECK(t.is_leaf());
  }
  Tensor y = made[0] * 2;
  REQUIRE(y.grad_fn() != nullptr);
  CHECK(y.grad_fn()->name() == "MulBackward0");  // as LibTorch names x * 2
  CHECK_THROWS_WITH_AS(tg::ones({2}, tg::TensorOptions().dtype(tg::kLong).requires_grad(true)),
                       doctest::Contains("Only Tensors of floating point"), tg::Error);
  CHECK_THROWS_WITH_AS(tg::ones({2}).to(tg::TensorOptions().dtype(tg::kDouble).requires_grad(true)),
                       doctest::Contains("expects unset requires_grad flag"), tg::Error);
  CHECK_FALSE(tg::ones({2}).requires_grad());
}

TEST_CASE("frontend_api: a fresh tensor's version is 0") {
  for (const Tensor& t : {tg::zeros({2}), tg::ones({2}), tg::full({2}, 3), tg::empty({2}), tg::rand({2}),
                          tg::randn({2}), tg::arange(3), tg::tensor({1.f}), tg::zeros_like(tg::ones({1})),
                          tg::ones_like(tg::ones({1})), tg::tensor({{1, 2}})}) {
    CHECK(t._version() == 0);
  }
  Tensor t = tg::zeros({2});
  t.add_(1);
  CHECK(t._version() == 1);
}
