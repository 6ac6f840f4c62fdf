// Issue 13, case 5: embedding's padding_idx, an invalid ScalarType and a gradient of the wrong
// dtype given to backward are refused with a tg::Error.
#include <doctest/doctest.h>

#include <string>

#include <tensorgen/tensorgen.h>

#include "../unit/ops_test_helpers.h"

namespace {

using ops_test::contains;
using ops_test::elements;
using ops_test::thrown;

TEST_CASE("embedding: padding_idx must index a row of the weight") {
  tg::Tensor w = tg::randn({4, 3});
  tg::Tensor idx = tg::tensor({int64_t(0), int64_t(3)});
  CHECK(contains(thrown<tg::Error>([&] { tg::embedding(w, idx, 10); }), "padding_idx"));
  CHECK(contains(thrown<tg::Error>([&] { tg::embedding(w, idx, 4); }), "padding_idx"));
  CHECK(contains(thrown<tg::Error>([&] { tg::embedding(w, idx, -7); }), "padding_idx"));
  CHECK(tg::embedding(w, idx, 3).size(0) == 2);
  CHECK(tg::embedding(w, idx, -1).size(0) == 2);
}

TEST_CASE("dtype: a ScalarType value outside the enum is refused") {
  std::string message = thrown<tg::Error>([] { tg::empty({2}, tg::TensorOptions().dtype(tg::ScalarType(42))); });
  CHECK(contains(message, "42"));
  message = thrown<tg::Error>([] { tg::zeros({2}).to(tg::ScalarType(42)); });
  CHECK(message != "<no exception>");
  CHECK_FALSE(contains(message, "<unexpected exception>"));
}

TEST_CASE("backward: a gradient of another dtype than its tensor is refused") {
  tg::Tensor x = tg::ones({2}).requires_grad_();
  tg::Tensor y = x.sum();
  tg::Tensor long_grad = tg::ones({}, tg::TensorOptions().dtype(tg::kLong));
  std::string message = thrown<tg::Error>([&] { y.backward(long_grad); });
  CHECK(contains(message, "int64"));
  CHECK(contains(message, "float32"));
  // The right dtype still works.
  y.backward(tg::ones({}));
  CHECK(elements(x.grad())[0] == 1.0);
}

}  // namespace
