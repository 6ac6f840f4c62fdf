// Tests of the pointwise operators end to end through the generated API: every variant
// (function, method, in-place, out=, C++ operators, Scalar overloads), broadcasting, type
// promotion, the in-place and out= rules, non-contiguous and overlapping operands, and the
// values of every op on every dtype it supports (and the error for one it does not).
#include <cmath>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;

TEST_CASE("ops_pointwise: add, sub, mul, div through every variant") {
  const Tensor a = make({1, 2, 3, 4}, {2, 2});
  const Tensor b = make({2, 4, 8, 16}, {2, 2});
  CHECK(values(tg::add(a, b)) == Values{3, 6, 11, 20});
  CHECK(values(a.add(b)) == Values{3, 6, 11, 20});
  CHECK(values(a + b) == Values{3, 6, 11, 20});
  CHECK(values(tg::add(a, b, 2)) == Values{5, 10, 19, 36});
  CHECK(values(tg::add(a, 2)) == Values{3, 4, 5, 6});
  CHECK(values(a * 2.5) == Values{2.5, 5, 7.5, 10});
  CHECK(values(2.5 * a) == Values{2.5, 5, 7.5, 10});
  CHECK(values(b - a) == Values{1, 2, 5, 12});
  CHECK(values(tg::sub(b, a, 2)) == Values{0, 0, 2, 8});
  CHECK(values(3 - a) == Values{2, 1, 0, -1});
  CHECK(values(a * b) == Values{2, 8, 24, 64});
  CHECK(values(a / b) == Values{0.5, 0.5, 0.375, 0.25});
  CHECK(values(a / 4) == Values{0.25, 0.5, 0.75, 1});
  CHECK(values(-a) == Values{-1, -2, -3, -4});

  Tensor c = a.clone();
  const Tensor& returned = c.add_(b);
  CHECK(returned.is_same(c));
  CHECK(values(c) == Values{3, 6, 11, 20});
  c -= b;
  c *= b;
  c /= 2;
  CHECK(values(c) == Values{1, 4, 12, 32});
  c.add_(c);  // self is also the other input
  CHECK(values(c) == Values{2, 8, 24, 64});

  Tensor out = tg::empty({0});
  tg::add_out(out, a, b);
  CHECK(shape(out) == Ints{2, 2});
  CHECK(values(out) == Values{3, 6, 11, 20});
  Tensor aliased = a.clone();
  tg::add_out(aliased, aliased, b);  // out is an input
  CHECK(values(aliased) == Values{3, 6, 11, 20});
}

TEST_CASE("ops_pointwise: broadcasting") {
  const Tensor column = make({1, 2, 3}, {3, 1});
  const Tensor row = make({10, 20, 30, 40}, {4});
  const Tensor sum = column + row;
  CHECK(shape(sum) == Ints{3, 4});
  CHECK(values(sum) == Values{11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43});
  CHECK(shape(make({1}, {1, 1, 1}) * make({2, 3}, {2})) == Ints{1, 1, 2});
  CHECK(shape(make({}, {0, 1}) + row) == Ints{0, 4});

  const std::string message = thrown<tg::ValueError>([] { tg::add(make({1, 2, 3, 4, 5, 6}, {2, 3}), make({1, 2, 3, 4}, {4})); });
  CHECK(message == "[add] the size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
}

TEST_CASE("ops_pointwise: type promotion") {
  const Tensor i32 = make({1, 2}, {2}, tg::kInt);
  const Tensor i64 = make({1, 2}, {2}, tg::kLong);
  CHECK((i32 + make({0.5, 0.5}, {2})).scalar_type() == tg::kFloat);
  const Tensor promoted = i64 + 2.5;
  CHECK(promoted.scalar_type() == tg::kFloat);
  CHECK(values(promoted) == Values{3.5, 4.5});
  CHECK((i64 + 2).scalar_type() == tg::kLong);
  CHECK((make({1}, {1}, tg::kByte) + make({1}, {1}, tg::kChar)).scalar_type() == tg::kShort);
  const Tensor quotient = i32 / make({2, 8}, {2}, tg::kInt);
  CHECK(quotient.scalar_type() == tg::kFloat);
  CHECK(values(quotient) == Values{0.5, 0.25});
  // A zero-dim tensor counts only when its category is higher; then with its own dtype.
  CHECK((i64 + tg::scalar_tensor(2.5, tg::kDouble)).scalar_type() == tg::kDouble);
  CHECK((make({1}, {1}) + tg::scalar_tensor(2.5, tg::kDouble)).scalar_type() == tg::kFloat);
  CHECK((make({1}, {1}, tg::kHalf) + make({1}, {1}, tg::kBFloat16)).scalar_type() == tg::kFloat);
  const Tensor bools = make({1, 0, 0}, {3}, tg::kBool) + make({1, 1, 0}, {3}, tg::kBool);
  CHECK(bools.scalar_type() == tg::kBool);  // add on bool is logical or
  CHECK(values(bools) == Values{1, 1, 0});
  CHECK((make({1}, {1}, tg::kBool) + 1).scalar_type() == tg::kLong);

  tg::set_default_dtype(tg::kDouble);
  const tg::ScalarType with_double_default = (i64 + 2.5).scalar_type();
  const tg::ScalarType quotient_double = (i32 / i32).scalar_type();
  tg::set_default_dtype(tg::kFloat);
  CHECK(with_double_default == tg::kDouble);
  CHECK(quotient_double == tg::kDouble);
}

TEST_CASE("ops_pointwise: in-place and out= rules") {
  Tensor ints = make({1, 2}, {2}, tg::kLong);
  CHECK(contains(thrown<tg::TypeError>([&] { ints.add_(make({0.5, 0.5}, {2})); }), "can't be cast"));
  CHECK(values(ints) == Values{1, 2});
  Tensor floats = make({1, 2}, {2});
  floats.add_(ints);  // int64 into float32 is a permitted cast
  CHECK(values(floats) == Values{2, 4});
  Tensor small = make({1, 2, 3, 4}, {4});
  CHECK(contains(thrown<tg::ValueError>([&] { small.add_(tg::zeros({3, 4})); }), "doesn't match the broadcast shape"));
  CHECK(contains(thrown<tg::TypeError>([&] { tg::add(ints, ints, 2.5); }), "alpha must not be a floating point"));
  CHECK(contains(thrown<tg::TypeError>([&] { tg::add(floats, floats, true); }), "boolean alpha"));

  // An out of the right shape keeps its strides (a transposed out stays transposed).
  const Tensor a = make({1, 2, 3, 4}, {2, 2});
  Tensor transposed_out = column_major(tg::zeros({2, 2}));
  const Ints strides_before = transposed_out.strides().vec();
  tg::mul_out(transposed_out, a, a);
  CHECK(transposed_out.strides().vec() == strides_before);
  CHECK(values(transposed_out) == Values{1, 4, 9, 16});

  Tensor int_out = tg::empty({0}, tg::kLong);
  CHECK(contains(thrown<tg::TypeError>([&] { tg::div_out(int_out, a, a); }), "can't be cast"));
  Tensor double_out = tg::empty({0}, tg::kDouble);
  tg::add_out(double_out, ints, ints);  // int64 result into a float64 out
  CHECK(values(double_out) == Values{2, 4});
}

TEST_CASE("ops_pointwise: non-contiguous and overlapping operands") {
  const Tensor a = make({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor a_t = column_major(a);
  REQUIRE_FALSE(a_t.is_contiguous());
  CHECK(values(a_t + a) == Values{2, 4, 6, 8, 10, 12});
  CHECK(values(a.transpose(0, 1) * 10) == Values{10, 40, 20, 50, 30, 60});
  // The strided exp is the scalar std::exp and the contiguous one the vector exp (cpu/vec.h,
  // as LibTorch's Sleef path): the same values in the transposed places, to float rounding.
  const Values strided_exp = values(tg::exp(a.transpose(0, 1)));
  const Values contiguous_exp = values(tg::exp(a).transpose(0, 1));
  REQUIRE(strided_exp.size() == 6);
  for (size_t i = 0; i < 6; ++i) CHECK(strided_exp[i] == doctest::Approx(contiguous_exp[i]).epsilon(1e-6));
  // Mixed dtypes and strides take the converting path.
  CHECK(values(a_t + make({1, 1, 1}, {3}, tg::kInt)) == Values{2, 3, 4, 5, 6, 7});

  // The written tensor overlaps an input that is not the same elements: refused, as in
  // LibTorch (docs/reliability.md); the same elements (x.add_(x)) are an ordinary in-place op.
  Tensor x = make({0, 1, 2, 3, 4, 5}, {6});
  CHECK(contains(thrown<tg::Error>([&] { x.slice(0, 1, 6).add_(x.slice(0, 0, 5)); }), "some elements of the input"));
  x.add_(x);
  CHECK(values(x) == Values{0, 2, 4, 6, 8, 10});
  Tensor square = make({1, 2, 3, 4}, {2, 2});
  CHECK(contains(thrown<tg::Error>([&] { square.add_(square.transpose(0, 1)); }), "some elements of the input"));
}

TEST_CASE("ops_pointwise: float16 and bfloat16 compute in float and round on store") {
  const Tensor h = make({1024, 1.5}, {2}, tg::kHalf) + make({0.25, 0.25}, {2}, tg::kHalf);
  CHECK(h.scalar_type() == tg::kHalf);
  CHECK(values(h) == Values{1024, 1.75});  // 1024.25 is not a float16
  const Tensor b = make({256, 3}, {2}, tg::kBFloat16) + make({1, 0.5}, {2}, tg::kBFloat16);
  CHECK(values(b) == Values{256, 3.5});  // 257 rounds to even in bfloat16
  CHECK(values(make({2, 3}, {2}, tg::kHalf) * make({1.5, 0.5}, {2}, tg::kBFloat16)) == Values{3, 1.5});
}

TEST_CASE("ops_pointwise: arithmetic on every dtype") {
  for (tg::ScalarType dtype : kAllDtypes) {
    CAPTURE(dtype);
    const bool is_bool = dtype == tg::kBool;
    const Tensor a = make({1, 2, 3}, {3}, dtype);
    const Tensor b = make({4, 5, 6}, {3}, dtype);
    const Tensor sum = a + b;
    CHECK(sum.scalar_type() == dtype);
    CHECK(values(sum) == (is_bool ? Values{1, 1, 1} : Values{5, 7, 9}));
    CHECK(values(a * b) == (is_bool ? Values{1, 1, 1} : Values{4, 10, 18}));
    const Tensor quotient = a / make({2, 4, 8}, {3}, dtype);
    CHECK(quotient.scalar_type() == (tg::is_floating_type(dtype) ? dtype : tg::kFloat));
    CHECK(values(quotient) == (is_bool ? Values{1, 1, 1} : Values{0.5, 0.5, 0.375}));
    if (is_bool) {
      CHECK(contains(thrown<tg::TypeError>([&] { b - a; }), "[sub] subtraction, the `-` operator, with two bool"));
      CHECK(contains(thrown<tg::TypeError>([&] { -a; }), "[neg] negation, the `-` operator, on a bool tensor"));
      CHECK(contains(thrown<tg::NotImplementedError>([&] { tg::pow(a, b); }), "[pow] not implemented for 'bool'; supported: "));
      continue;
    }
    CHECK(values(b - a) == Values{3, 3, 3});
    CHECK(values(tg::pow(a, make({2, 3, 2}, {3}, dtype))) == Values{1, 8, 9});
    const Values negated = dtype == tg::kByte ? Values{255, 254, 253} : Values{-1, -2, -3};
    CHECK(values(-a) == negated);
  }
  CHECK(contains(thrown<tg::TypeError>([] { make({1}, {1}) - make({1}, {1}, tg::kBool); }), "with a bool tensor"));
  // Integer arithmetic wraps; integer powers follow PyTorch (negative exponents give 0).
  CHECK(values(make({100}, {1}, tg::kChar) + make({100}, {1}, tg::kChar)) == Values{-56});
  CHECK(values(tg::pow(make({2, 1, -1, -1}, {4}, tg::kLong), make({-1, -3, -3, -2}, {4}, tg::kLong))) ==
        Values{0, 1, -1, 1});
  const Values roots = values(tg::pow(make({2, 4}, {2}), 0.5));
  CHECK(roots[0] == doctest::Approx(std::sqrt(2.0)).epsilon(1e-7));
  CHECK(roots[1] == 2);
  const Tensor powers = tg::pow(2, make({3, 0.5}, {2}, tg::kDouble));
  CHECK(powers.scalar_type() == tg::kDouble);
  CHECK(values(powers)[0] == 8);
  CHECK(values(powers)[1] == doctest::Approx(std::sqrt(2.0)).epsilon(1e-15));
}

TEST_CASE("ops_pointwise: unary ops on every dtype") {
  for (tg::ScalarType dtype : kAllDtypes) {
    CAPTURE(dtype);
    const bool is_bool = dtype == tg::kBool;
    const tg::ScalarType float_result = tg::is_floating_type(dtype) ? dtype : tg::kFloat;
    const double tolerance = dtype == tg::kHalf ? 1e-3 : dtype == tg::kBFloat16 ? 1e-2 : 1e-6;
    const Tensor x = is_bool ? make({0, 1}, {2}, dtype) : make({1, 4}, {2}, dtype);
    const Values xs = values(x);
    for (const char* name : {"exp", "log", "sqrt", "sigmoid", "tanh"}) {
      CAPTURE(name);
      const std::string op = name;
      const Tensor y = op == "exp" ? tg::exp(x) : op == "log" ? tg::log(x) : op == "sqrt" ? tg::sqrt(x)
                     : op == "sigmoid" ? tg::sigmoid(x) : tg::tanh(x);
      CHECK(y.scalar_type() == float_result);
      const Values ys = values(y);
      for (size_t i = 0; i < xs.size(); ++i) {
        const double v = xs[i];
        const double expected = op == "exp" ? std::exp(v) : op == "log" ? std::log(v) : op == "sqrt" ? std::sqrt(v)
                              : op == "sigmoid" ? 1 / (1 + std::exp(-v)) : std::tanh(v);
        if (std::isinf(expected)) {
          CHECK(ys[i] == expected);
        } else {
          CHECK(ys[i] == doctest::Approx(expected).epsilon(tolerance));
        }
      }
    }
    if (is_bool) {
      // abs of bool is refused, as in LibTorch (docs/operators.md).
      CHECK(contains(thrown<tg::NotImplementedError>([&] { tg::abs(x); }), "[abs] not implemented for 'bool'"));
    } else {
      CHECK(values(tg::abs(x)) == xs);
    }
    if (is_bool) {
      CHECK(contains(thrown<tg::NotImplementedError>([&] { tg::relu(x); }), "[relu] not implemented for 'bool'; supported: "));
      CHECK(contains(thrown<tg::NotImplementedError>([&] { tg::clamp(x, true); }), "[clamp] not implemented for 'bool'; supported: "));
      CHECK(tg::clamp(x, 0).scalar_type() == tg::kLong);  // an int bound promotes bool to int64
      continue;
    }
    const bool is_signed = dtype != tg::kByte;
    const Tensor mixed = make({is_signed ? -3.0 : 3.0, 0, 2}, {3}, dtype);
    CHECK(values(tg::relu(mixed)) == (is_signed ? Values{0, 0, 2} : Values{3, 0, 2}));
    CHECK(values(tg::abs(mixed)) == Values{3, 0, 2});
    const Tensor clamped = tg::clamp(make({1, 5, 9}, {3}, dtype), 2, 6);
    CHECK(clamped.scalar_type() == dtype);
    CHECK(values(clamped) == Values{2, 5, 6});
  }
  CHECK(values(make({4, 9}, {2}).sqrt_()) == Values{2, 3});
  CHECK(std::isnan(values(tg::relu(make({NAN}, {1})))[0]));
}

TEST_CASE("ops_pointwise: clamp bounds") {
  const Tensor x = make({-2, 0.5, 3, NAN}, {4});
  const Values low = values(tg::clamp(x, 0));
  CHECK(low[0] == 0);
  CHECK(low[2] == 3);
  CHECK(std::isnan(low[3]));
  CHECK(values(tg::clamp(x, std::nullopt, 1)).at(2) == 1);
  CHECK(values(tg::clamp(make({1, 5}, {2}), 4, 2)) == Values{2, 2});  // max wins when min > max
  const Tensor promoted = tg::clamp(make({1, 5}, {2}, tg::kLong), 1.5);
  CHECK(promoted.scalar_type() == tg::kFloat);
  CHECK(values(promoted) == Values{1.5, 5});
  CHECK(thrown<tg::ValueError>([&] { tg::clamp(x); }) == "[clamp] at least one of 'min' or 'max' must not be None");
  Tensor ints = make({1, 5}, {2}, tg::kLong);
  CHECK(contains(thrown<tg::TypeError>([&] { ints.clamp_(1.5); }), "can't be cast"));
  ints.clamp_(2, 4);
  CHECK(values(ints) == Values{2, 4});
}

TEST_CASE("ops_pointwise: comparisons on every dtype") {
  for (tg::ScalarType dtype : kAllDtypes) {
    CAPTURE(dtype);
    const bool is_bool = dtype == tg::kBool;
    const Tensor a = is_bool ? make({0, 1, 1}, {3}, dtype) : make({1, 2, 3}, {3}, dtype);
    const Tensor b = is_bool ? make({1, 1, 0}, {3}, dtype) : make({2, 2, 2}, {3}, dtype);
    CHECK(tg::eq(a, b).scalar_type() == tg::kBool);
    CHECK(values(tg::eq(a, b)) == Values{0, 1, 0});
    CHECK(values(a != b) == Values{1, 0, 1});
    CHECK(values(a < b) == Values{1, 0, 0});
    CHECK(values(a <= b) == Values{1, 1, 0});
    CHECK(values(a > b) == Values{0, 0, 1});
    CHECK(values(a >= b) == Values{0, 1, 1});
  }
  // Mixed operands compare in their result type: 2 < 2.5 in float, not 2 < 2 in int64.
  CHECK(values(make({2, 3}, {2}, tg::kLong) < 2.5) == Values{1, 0});
  CHECK(values(make({1, 2}, {2}, tg::kByte) > make({-1, 5}, {2}, tg::kChar)) == Values{1, 0});
  Tensor in_place = make({1, 2, 3}, {3});
  in_place.ge_(2);  // the result is stored as self's dtype
  CHECK(in_place.scalar_type() == tg::kFloat);
  CHECK(values(in_place) == Values{0, 1, 1});
  Tensor out = tg::empty({0}, tg::kBool);
  tg::lt_out(out, make({1, 2}, {2, 1}), make({1, 2, 3}, {3}));
  CHECK(shape(out) == Ints{2, 3});
  CHECK(values(out) == Values{0, 1, 1, 0, 0, 1});
}

TEST_CASE("ops_pointwise: where") {
  const Tensor condition = make({1, 0, 1}, {3}, tg::kBool);
  for (tg::ScalarType dtype : kAllDtypes) {
    CAPTURE(dtype);
    const Tensor chosen = tg::where(condition, make({1, 1, 1}, {3}, dtype), make({0, 0, 0}, {3}, dtype));
    CHECK(chosen.scalar_type() == dtype);
    CHECK(values(chosen) == Values{1, 0, 1});
  }
  const Tensor broadcast = tg::where(make({1, 0}, {2, 1}, tg::kBool), make({1, 2, 3}, {3}, tg::kLong), make({0.5}, {1}));
  CHECK(broadcast.scalar_type() == tg::kFloat);
  CHECK(shape(broadcast) == Ints{2, 3});
  CHECK(values(broadcast) == Values{1, 2, 3, 0.5, 0.5, 0.5});
  CHECK(values(make({7, 8, 9}, {3}).where(condition, make({0}, {1}))) == Values{7, 0, 9});
  CHECK(thrown<tg::TypeError>([&] { tg::where(make({1}, {1}), condition, condition); }) ==
        "[where] expected condition to be a boolean tensor, but got a tensor with dtype float32");
}

TEST_CASE("ops_pointwise: threshold_backward is relu's gradient, with ATen's NaN and dtype rules") {
  const Tensor grad = make({1, 2, 3, 4, 5}, {5});
  const Tensor x = make({-1, 0, 0.5, NAN, 2}, {5});
  // grad where x > threshold; x == threshold gives 0; a NaN x passes grad (NaN <= t is false).
  CHECK(values(tg::threshold_backward(grad, x, 0)) == Values{0, 0, 3, 4, 5});
  CHECK(values(tg::threshold_backward(grad, x, 0.5)) == Values{0, 0, 0, 4, 5});
  // Broadcasts and promotes as a binary op; integral dtypes work as for relu.
  const Tensor ints = tg::threshold_backward(make({7}, {1}, tg::kLong), make({-2, 3}, {2}, tg::kLong), 0);
  CHECK(ints.scalar_type() == tg::kLong);
  CHECK(values(ints) == Values{0, 7});
  Tensor out = tg::empty({5});
  tg::threshold_backward_out(out, grad, x, 0);
  CHECK(values(out) == Values{0, 0, 3, 4, 5});
  CHECK(contains(thrown<tg::NotImplementedError>([&] {
                   tg::threshold_backward(make({1}, {1}, tg::kBool), make({1}, {1}, tg::kBool), 0);
                 }),
                 "[threshold_backward] not implemented for 'bool'"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::threshold_backward(make({1, 2}, {2}), make({1, 2, 3}, {3}), 0); }),
                 "[threshold_backward] the size of tensor a (2)"));

  // relu's backward is this kernel: the gradient at x is 1 where relu passed x through.
  Tensor leaf = make({-1, 0, 0.5, 2}, {4}).requires_grad_();
  tg::relu(leaf).sum().backward();
  CHECK(values(leaf.grad()) == Values{0, 0, 1, 1});
}
