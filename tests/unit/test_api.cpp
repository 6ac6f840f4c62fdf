// End-to-end tests of the public C++ API, as a LibTorch user writes it: the function, method,
// in-place and out variants; boxed calls by name; tensors from C++ values and from memory the
// caller owns; item(); printing; the C++ operators; matmul and linear; to(), clone() and
// contiguous(); and the full reductions.
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "ops_test_helpers.h"

namespace {

using tg::Tensor;
using tg::TensorOptions;

using ops_test::contains;
using ops_test::elements;
using ops_test::vec;
using ops_test::Ints;
using ops_test::thrown;
using ops_test::Values;

std::string printed(const Tensor& t) {
  std::ostringstream out;
  out << t;
  return out.str();
}

// Same shape and dtype, and every element within a float32 rounding error.
void check_close(const Tensor& actual, const Tensor& expected) {
  REQUIRE(vec(actual.sizes()) == vec(expected.sizes()));
  CHECK(actual.scalar_type() == expected.scalar_type());
  const Values a = elements(actual);
  const Values e = elements(expected);
  for (size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    CHECK(a[i] == doctest::Approx(e[i]).epsilon(1e-5));
  }
}

Tensor floats(std::vector<float> values) { return tg::tensor(values); }

}  // namespace

TEST_CASE("api: function, method, in-place and out variants agree") {
  Tensor a = floats({1, 2, 3});
  Tensor b = floats({10, 20, 30});
  CHECK(elements(tg::add(a, b)) == Values{11, 22, 33});
  CHECK(elements(a.add(b)) == Values{11, 22, 33});
  CHECK(elements(tg::add(a, b, 2)) == Values{21, 42, 63});
  CHECK(elements(a.sub(b)) == Values{-9, -18, -27});
  CHECK(elements(tg::mul(a, b)) == Values{10, 40, 90});
  CHECK(elements(b.div(a)) == Values{10, 10, 10});
  CHECK(elements(tg::neg(a)) == Values{-1, -2, -3});

  Tensor out = tg::empty({0});
  Tensor& returned = tg::add_out(out, a, b);
  CHECK(&returned == &out);
  CHECK(vec(out.sizes()) == Ints{3});
  CHECK(elements(out) == Values{11, 22, 33});
  tg::mul_out(out, a, a);
  CHECK(elements(out) == Values{1, 4, 9});

  Tensor c = a.clone();
  const Tensor& self = c.add_(b);
  CHECK(&self == &c);
  CHECK(elements(c) == Values{11, 22, 33});
  c.mul_(2).sub_(1);
  CHECK(elements(c) == Values{21, 43, 65});
  tg::neg_(c);
  CHECK(elements(c) == Values{-21, -43, -65});
  CHECK(elements(a) == Values{1, 2, 3});  // untouched throughout
}

TEST_CASE("api: Scalar overloads promote like PyTorch's wrapped numbers") {
  Tensor i = tg::tensor({1, 2, 3});
  Tensor f = floats({1, 2, 3});

  Tensor i_plus_float = tg::add(i, 2.5);
  CHECK(i_plus_float.scalar_type() == tg::kFloat);
  CHECK(elements(i_plus_float) == Values{3.5, 4.5, 5.5});
  CHECK(tg::add(i, 2).scalar_type() == tg::kLong);
  CHECK(tg::add(tg::ones({2}, tg::kInt32), 2).scalar_type() == tg::kInt);
  CHECK(f.mul(2.0).scalar_type() == tg::kFloat);
  CHECK(elements(tg::sub(f, 1, 2)) == Values{-1, 0, 1});
  CHECK(elements(f.div(2)) == Values{0.5, 1, 1.5});
  CHECK(i.div(2).scalar_type() == tg::kFloat);  // true division

  Tensor eq = tg::eq(f, 2);
  CHECK(eq.scalar_type() == tg::kBool);
  CHECK(elements(eq) == Values{0, 1, 0});
  CHECK(elements(f.ne(2)) == Values{1, 0, 1});
  CHECK(elements(f.lt(2)) == Values{1, 0, 0});
  CHECK(elements(f.le(2)) == Values{1, 1, 0});
  CHECK(elements(f.gt(2)) == Values{0, 0, 1});
  CHECK(elements(tg::ge(f, 2)) == Values{0, 1, 1});

  Tensor g = f.clone();
  g.add_(1.5);
  CHECK(elements(g) == Values{2.5, 3.5, 4.5});
  g.sub_(0.5, 2).mul_(2).div_(4);
  CHECK(elements(g) == Values{0.75, 1.25, 1.75});
  g.eq_(1.25);
  CHECK(g.scalar_type() == tg::kFloat);
  CHECK(elements(g) == Values{0, 1, 0});
  Tensor j = i.clone();
  j.add_(2);
  CHECK(elements(j) == Values{3, 4, 5});
  CHECK_THROWS_AS(j.add_(0.5), tg::TypeError);  // float result into an int64 tensor

  CHECK(elements(tg::pow(f, 2)) == Values{1, 4, 9});
  const Values roots = elements(f.pow(0.5));
  CHECK(roots[0] == 1);
  CHECK(roots[1] == doctest::Approx(std::sqrt(2.0)));
  CHECK(roots[2] == doctest::Approx(std::sqrt(3.0)));
  Tensor two_to_the = tg::pow(2, i);
  CHECK(two_to_the.scalar_type() == tg::kLong);
  CHECK(elements(two_to_the) == Values{2, 4, 8});
  CHECK(tg::pow(2.0, i).scalar_type() == tg::kFloat);
  Tensor h = f.clone();
  h.pow_(3);
  CHECK(elements(h) == Values{1, 8, 27});
}

TEST_CASE("api: boxed calls by name match the typed API") {
  tg::Dispatcher& dispatcher = tg::Dispatcher::singleton();
  Tensor a = floats({1, 2, 3});
  Tensor b = floats({4, 5, 6});

  tg::OperatorHandle add = dispatcher.findSchemaOrThrow("tg::add.Tensor");
  tg::Stack stack{a, b};  // alpha omitted: the schema's default, 1
  add.callBoxed(stack);
  REQUIRE(stack.size() == 1);
  CHECK(elements(stack[0].toTensor()) == elements(tg::add(a, b)));

  stack = {a, b, tg::Scalar(3)};
  add.callBoxed(stack);
  REQUIRE(stack.size() == 1);
  CHECK(elements(stack[0].toTensor()) == elements(tg::add(a, b, 3)));

  stack = {a, tg::Scalar(2.5)};
  dispatcher.findSchemaOrThrow("tg::mul.Scalar").callBoxed(stack);
  CHECK(elements(stack[0].toTensor()) == Values{2.5, 5, 7.5});

  stack = {a};
  dispatcher.findSchemaOrThrow("tg::sum").callBoxed(stack);
  CHECK(stack[0].toTensor().dim() == 0);
  CHECK(stack[0].toTensor().item<double>() == 6);

  stack = {tg::arange(6, tg::kFloat), std::vector<int64_t>{2, 3}};
  dispatcher.findSchemaOrThrow("tg::view").callBoxed(stack);
  CHECK(vec(stack[0].toTensor().sizes()) == Ints{2, 3});

  stack = {std::vector<int64_t>{2, 2}};
  dispatcher.findSchemaOrThrow("tg::zeros").callBoxed(stack);
  CHECK(stack[0].toTensor().scalar_type() == tg::kFloat);
  CHECK(elements(stack[0].toTensor()) == Values{0, 0, 0, 0});

  CHECK_THROWS_AS(dispatcher.findSchemaOrThrow("tg::add.NoSuchOverload"), tg::Error);
}

TEST_CASE("api: tg::tensor takes LibTorch's dtypes") {
  Tensor i = tg::tensor({1, 2, 3});
  CHECK(i.scalar_type() == tg::kLong);
  CHECK(elements(i) == Values{1, 2, 3});
  Tensor f = tg::tensor({1.5, 2.5});
  CHECK(f.scalar_type() == tg::kFloat);
  CHECK(elements(f) == Values{1.5, 2.5});
  CHECK(tg::tensor({1.5f}).scalar_type() == tg::kFloat);
  CHECK(tg::tensor({true, false}).scalar_type() == tg::kBool);
  CHECK(tg::tensor({1, 2}, tg::kDouble).scalar_type() == tg::kDouble);
  CHECK(vec(tg::tensor(std::vector<int64_t>{4, 5, 6, 7}).sizes()) == Ints{4});
}

TEST_CASE("api: from_blob views the caller's memory, and its deleter runs once") {
  float data[6] = {0, 1, 2, 3, 4, 5};
  Tensor t = tg::from_blob(data, {2, 3});
  CHECK(t.data_ptr() == data);
  CHECK(t.scalar_type() == tg::kFloat);
  CHECK(vec(t.sizes()) == Ints{2, 3});
  data[4] = 40;
  CHECK(elements(t.select(0, 1)) == Values{3, 40, 5});
  t.select(1, 0).fill_(-1);
  CHECK(data[0] == -1);
  CHECK(data[3] == -1);

  int64_t longs[3] = {7, 8, 9};
  CHECK(elements(tg::from_blob(longs, {3}, tg::kLong)) == Values{7, 8, 9});

  int deleted = 0;
  void* deleted_pointer = nullptr;
  {
    Tensor owner = tg::from_blob(data, {6}, [&](void* p) {
      ++deleted;
      deleted_pointer = p;
    });
    Tensor view = owner.view({3, 2});
    Tensor copy = owner;
    owner.reset();
    copy.reset();
    CHECK(deleted == 0);  // the view still uses the memory
    CHECK(view.data_ptr<float>()[1] == 1);
  }
  CHECK(deleted == 1);
  CHECK(deleted_pointer == data);
}

TEST_CASE("api: item() reads one-element tensors") {
  CHECK(tg::tensor({5}).item<int64_t>() == 5);
  CHECK(tg::full({}, 2.5).item<float>() == 2.5f);
  CHECK(tg::full({1, 1}, 3).item<double>() == 3.0);
  CHECK(tg::tensor({true}).item<bool>());
  CHECK(floats({1, 2, 3}).sum().item<float>() == 6.0f);
}

TEST_CASE("api: item() on a tensor of several elements is a ValueError") {
  const std::string message = thrown<tg::ValueError>([] { tg::tensor({1, 2, 3}).item(); });
  CHECK(contains(message, "[item]"));
  CHECK(contains(message, "3 elements"));
  CHECK_THROWS_AS(tg::zeros({0}).item<float>(), tg::ValueError);
}

TEST_CASE("api: printing matches LibTorch's layout") {
  Tensor m = floats({1, 2, 3, 4, 5, 6}).view({2, 3});
  CHECK(printed(m) == " 1  2  3\n 4  5  6\n[ CPUFloatType{2,3} ]");
  CHECK(printed(tg::tensor({1, 2, 3})) == " 1\n 2\n 3\n[ CPULongType{3} ]");
  CHECK(printed(floats({1.5f, -2.25f}).view({1, 2})) == " 1.5000 -2.2500\n[ CPUFloatType{1,2} ]");
  CHECK(printed(tg::tensor({10, 200})) == "  10\n 200\n[ CPULongType{2} ]");
  CHECK(printed(tg::full({}, 3.5)) == "3.5\n[ CPUFloatType{} ]");
  CHECK(printed(tg::arange(8).view({2, 2, 2})) ==
        "(1,.,.) = \n  0  1\n  2  3\n\n(2,.,.) = \n  4  5\n  6  7\n[ CPULongType{2,2,2} ]");
  CHECK(printed(m.t()) == " 1  4\n 2  5\n 3  6\n[ CPUFloatType{3,2} ]");
  CHECK(printed(Tensor()) == "[ Tensor (undefined) ]");
}

TEST_CASE("api: C++ operators") {
  Tensor a = floats({1, 2, 3});
  Tensor b = floats({4, 5, 6});
  CHECK(elements(a + b) == Values{5, 7, 9});
  CHECK(elements(b - a) == Values{3, 3, 3});
  CHECK(elements(a * b) == Values{4, 10, 18});
  CHECK(elements(b / a) == Values{4, 2.5, 2});
  CHECK(elements(-a) == Values{-1, -2, -3});
  CHECK(elements(a + 1) == Values{2, 3, 4});
  CHECK(elements(2 * a) == Values{2, 4, 6});
  CHECK(elements(1 - a) == Values{0, -1, -2});
  CHECK(elements(a / 2) == Values{0.5, 1, 1.5});
  CHECK(elements(a == b - 3) == Values{1, 1, 1});
  CHECK(elements(a > 1.5) == Values{0, 1, 1});

  Tensor c = a.clone();
  const Tensor& same = (c += b);
  CHECK(&same == &c);
  CHECK(elements(c) == Values{5, 7, 9});
  c -= 1;
  c *= a;
  c /= 2;
  CHECK(elements(c) == Values{2, 6, 12});

  // Broadcasting through the operators.
  Tensor col = floats({10, 20}).view({2, 1});
  Tensor sum = col + a;
  CHECK(vec(sum.sizes()) == Ints{2, 3});
  CHECK(elements(sum) == Values{11, 12, 13, 21, 22, 23});
}

TEST_CASE("api: matmul follows PyTorch's rules for every combination of dims") {
  tg::manual_seed(11);
  Tensor v3 = tg::randn({3});
  Tensor w3 = tg::randn({3});
  Tensor m23 = tg::randn({2, 3});
  Tensor m34 = tg::randn({3, 4});
  Tensor b234 = tg::randn({2, 3, 4});

  // 1 x 1: the dot product, 0-dim.
  Tensor dot = tg::matmul(v3, w3);
  CHECK(dot.dim() == 0);
  CHECK(dot.item<double>() == doctest::Approx(tg::mul(v3, w3).sum().item<double>()).epsilon(1e-5));
  // 2 x 1 and 1 x 2.
  check_close(tg::matmul(m23, v3), m23.mm(v3.view({3, 1})).view({2}));
  check_close(v3.matmul(m34), v3.view({1, 3}).mm(m34).view({4}));
  // 2 x 2.
  check_close(tg::matmul(m23, m34), m23.mm(m34));
  // 3 x 1 and 3 x 2: self's batch dims fold into its rows.
  Tensor b3 = tg::matmul(b234, tg::randn({4}));
  CHECK(vec(b3.sizes()) == Ints{2, 3});
  Tensor m45 = tg::randn({4, 5});
  Tensor b35 = tg::matmul(b234, m45);
  CHECK(vec(b35.sizes()) == Ints{2, 3, 5});
  for (int64_t i = 0; i < 2; ++i) check_close(b35.select(0, i), b234.select(0, i).mm(m45));
  // 1 x 3 and 2 x 3: other's batch dims.
  Tensor v_b = tg::matmul(v3, b234);
  CHECK(vec(v_b.sizes()) == Ints{2, 4});
  for (int64_t i = 0; i < 2; ++i) check_close(v_b.select(0, i), v3.view({1, 3}).mm(b234.select(0, i)).view({4}));
  Tensor m_b = tg::matmul(m23, b234);
  CHECK(vec(m_b.sizes()) == Ints{2, 2, 4});
  for (int64_t i = 0; i < 2; ++i) check_close(m_b.select(0, i), m23.mm(b234.select(0, i)));
  // 3 x 3 and 4 x 3 with broadcast batch dims and a non-contiguous operand.
  Tensor x = tg::randn({2, 1, 3, 4});
  Tensor y = tg::randn({5, 2, 4}).transpose(1, 2);  // [5, 4, 2], not contiguous
  Tensor xy = x.matmul(y);
  CHECK(vec(xy.sizes()) == Ints{2, 5, 3, 2});
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      check_close(xy.select(0, i).select(0, j), x.select(0, i).select(0, 0).mm(y.select(0, j)));
    }
  }
  Tensor batched = tg::matmul(tg::randn({3, 2, 4}), tg::randn({3, 4, 5}));
  CHECK(vec(batched.sizes()) == Ints{3, 2, 5});

  // matmul.out resizes an empty out.
  Tensor out = tg::empty({0});
  tg::matmul_out(out, b234, m45);
  check_close(out, b35);

  CHECK(contains(thrown<tg::Error>([&] { tg::matmul(tg::full({}, 1.0), v3); }), "at least 1D"));
  CHECK(contains(thrown<tg::Error>([&] { tg::matmul(v3, tg::randn({4})); }), "inconsistent tensor size"));
  CHECK_THROWS_AS(tg::matmul(m23, m23), tg::Error);
  CHECK_THROWS_AS(tg::matmul(tg::randn({2, 3, 4}), tg::randn({3, 4, 5})), tg::Error);
  CHECK_THROWS_AS(tg::matmul(tg::randn({2, 3, 4}), tg::randn({2, 5, 5})), tg::Error);
}

TEST_CASE("api: linear is input @ weight.t() + bias") {
  tg::manual_seed(5);
  Tensor input = tg::randn({4, 3});
  Tensor weight = tg::randn({2, 3});
  Tensor bias = floats({10, -10});
  check_close(tg::linear(input, weight), input.mm(weight.t()));
  Tensor with_bias = tg::linear(input, weight, bias);
  check_close(with_bias, input.mm(weight.t()) + bias);

  Tensor batch = tg::randn({5, 4, 3});
  Tensor y = tg::linear(batch, weight, bias);
  CHECK(vec(y.sizes()) == Ints{5, 4, 2});
  for (int64_t i = 0; i < 5; ++i) check_close(y.select(0, i), batch.select(0, i).mm(weight.t()) + bias);
  // A 1-d input gives a 1-d output.
  Tensor x = floats({1, 2, 3});
  check_close(tg::linear(x, weight, bias), x.view({1, 3}).mm(weight.t()).view({2}) + bias);
}

TEST_CASE("api: to() converts, or returns self when nothing changes") {
  Tensor f = floats({1.5f, -2.75f, 3});
  Tensor d = f.to(tg::kDouble);
  CHECK(d.scalar_type() == tg::kDouble);
  CHECK_FALSE(d.is_alias_of(f));
  CHECK(elements(d) == Values{1.5, -2.75, 3});
  CHECK(elements(f.to(tg::kLong)) == Values{1, -2, 3});
  CHECK(f.to(TensorOptions().dtype(tg::kInt32)).scalar_type() == tg::kInt);

  CHECK(f.to(tg::kFloat).is_same(f));
  CHECK(f.to(TensorOptions()).is_same(f));
  CHECK(f.to(tg::Device(tg::kCPU), tg::kFloat).is_same(f));
  CHECK(f.to(tg::Device("cpu")).is_same(f));
  Tensor copied = f.to(tg::kFloat, /*non_blocking=*/false, /*copy=*/true);
  CHECK_FALSE(copied.is_same(f));
  CHECK_FALSE(copied.is_alias_of(f));
  CHECK(elements(copied) == elements(f));

  // A contiguous memory format asked of a transposed tensor makes a contiguous copy.
  Tensor t = floats({1, 2, 3, 4, 5, 6}).view({2, 3}).t();
  CHECK(t.to(tg::kFloat).is_same(t));
  Tensor dense = t.to(tg::kFloat, false, false, tg::MemoryFormat::Contiguous);
  CHECK(dense.is_contiguous());
  CHECK(elements(dense) == elements(t));
  CHECK(elements(t.to(tg::kDouble)) == Values{1, 4, 2, 5, 3, 6});
}

TEST_CASE("api: clone is a deep copy and contiguous() densifies") {
  Tensor a = floats({1, 2, 3, 4, 5, 6}).view({2, 3});
  Tensor c = a.clone();
  CHECK_FALSE(c.is_alias_of(a));
  CHECK(vec(c.sizes()) == Ints{2, 3});
  CHECK(elements(c) == elements(a));
  c.fill_(0);
  CHECK(elements(a) == Values{1, 2, 3, 4, 5, 6});
  CHECK(tg::clone(tg::tensor({1, 2})).scalar_type() == tg::kLong);

  Tensor t = a.t();
  Tensor tc = t.clone();
  CHECK(tc.is_contiguous());
  CHECK(elements(tc) == Values{1, 4, 2, 5, 3, 6});

  Tensor dense = t.contiguous();
  CHECK(dense.is_contiguous());
  CHECK_FALSE(dense.is_alias_of(a));
  CHECK(vec(dense.sizes()) == Ints{3, 2});
  CHECK(vec(dense.strides()) == Ints{2, 1});
  CHECK(elements(dense) == Values{1, 4, 2, 5, 3, 6});
  CHECK(a.contiguous().is_same(a));
}

TEST_CASE("api: full reductions") {
  Tensor f = floats({1, 2, 3, 4}).view({2, 2});
  Tensor s = f.sum();
  CHECK(s.dim() == 0);
  CHECK(s.scalar_type() == tg::kFloat);
  CHECK(s.item<float>() == 10);
  CHECK(tg::sum(f, tg::kDouble).scalar_type() == tg::kDouble);
  CHECK(tg::sum(tg::tensor({1, 2, 3})).item<int64_t>() == 6);
  CHECK(tg::sum(tg::ones({3}, tg::kInt32)).scalar_type() == tg::kLong);  // integers sum as int64
  CHECK(tg::sum(tg::zeros({0})).item<float>() == 0);

  CHECK(f.mean().item<float>() == 2.5f);
  CHECK(tg::mean(f, tg::kDouble).scalar_type() == tg::kDouble);

  Tensor m = floats({3, -1, 7, 2}).max();
  CHECK(m.dim() == 0);
  CHECK(m.item<float>() == 7);
  CHECK(tg::max(tg::tensor({4, 9, 2}).view({3, 1})).item<int64_t>() == 9);
  CHECK(contains(thrown<tg::Error>([] { tg::zeros({2, 0}).max(); }), "[max]"));
}
