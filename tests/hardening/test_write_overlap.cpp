// Issue 13, case 4: no in-place or out= write into a tensor where several elements share one
// memory location, and no write whose output partly overlaps an input (runtime/ops/overlap.h).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "../unit/ops_test_helpers.h"

namespace {

using ops_test::contains;
using ops_test::elements;
using ops_test::thrown;

bool refused_internal(const std::string& message) {
  return contains(message, "more than one element of the written-to tensor refers to a single memory location");
}

TEST_CASE("overlap: in-place writes into an expanded tensor are refused") {
  tg::Tensor b = tg::tensor({1.0, 2.0, 3.0});
  tg::Tensor e = b.expand({4, 3});
  CHECK(refused_internal(thrown<tg::Error>([&] { e.fill_(7); })));
  CHECK(refused_internal(thrown<tg::Error>([&] { e.zero_(); })));
  CHECK(refused_internal(thrown<tg::Error>([&] { e.masked_fill_(tg::ones({4, 3}).to(tg::kBool), 1.0); })));
  CHECK(refused_internal(thrown<tg::Error>([&] { e.uniform_(); })));
  CHECK(refused_internal(thrown<tg::Error>([&] { e.normal_(); })));
  CHECK(refused_internal(thrown<tg::Error>([&] { e.add_(1); })));
  CHECK(refused_internal(thrown<tg::Error>([&] { e.copy_(tg::zeros({4, 3})); })));
  // Nothing was written: b still holds its values.
  CHECK(elements(b)[0] == 1.0f);
  CHECK(elements(b)[2] == 3.0f);
}

TEST_CASE("overlap: out= into an expanded tensor is refused") {
  tg::Tensor self = tg::arange(12, tg::TensorOptions().dtype(tg::kFloat)).reshape({4, 3});
  tg::Tensor index = tg::tensor({int64_t(0), int64_t(2)});
  tg::Tensor out = tg::zeros({3}).expand({2, 3});
  CHECK(refused_internal(thrown<tg::Error>([&] { tg::index_select_out(out, self, 0, index); })));
  tg::Tensor out2 = tg::zeros({1}).expand({4, 3});
  CHECK(refused_internal(thrown<tg::Error>([&] { tg::add_out(out2, self, self); })));
}

TEST_CASE("overlap: an output partly overlapping an input is refused, a full overlap is allowed") {
  tg::Tensor x = tg::arange(10, tg::TensorOptions().dtype(tg::kFloat));
  std::string message = thrown<tg::Error>([&] { x.narrow(0, 0, 4).add_(x.narrow(0, 1, 4)); });
  CHECK(contains(message, "some elements of the input tensor and the written-to tensor refer to a single memory location"));
  tg::Tensor m = tg::arange(9, tg::TensorOptions().dtype(tg::kFloat)).reshape({3, 3});
  message = thrown<tg::Error>([&] { m.add_(m.t()); });
  CHECK(contains(message, "some elements of the input tensor"));
  // Same memory, same layout: an ordinary in-place op.
  x.add_(x);
  CHECK(elements(x)[3] == 6.0f);
  // Disjoint views of one storage are fine.
  x.narrow(0, 0, 5).add_(x.narrow(0, 5, 5));
  CHECK(elements(x)[0] == 10.0f);
}

TEST_CASE("overlap: ordinary writes are untouched") {
  tg::Tensor t = tg::zeros({4, 3});
  t.fill_(2);
  t.t().fill_(3);  // transposed: no two elements share memory
  CHECK(elements(t)[1 * 3 + 1] == 3.0f);
  tg::Tensor s = tg::zeros({1, 3});
  s.expand({1, 3}).fill_(5);  // size-1 dims may have any stride
  CHECK(elements(s)[0 * 3 + 2] == 5.0f);
}

}  // namespace
