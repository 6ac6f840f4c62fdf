// Issue 13, case 3: no std::bad_alloc or std::length_error reaches a user; chunk of an empty
// dim gives one piece, as LibTorch does.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include <tensorgen/tensorgen.h>

#include "../unit/test_helpers.h"

namespace {

using test_helpers::contains;
using test_helpers::thrown;

TEST_CASE("chunk: a dim of size 0 gives one empty piece, whatever the chunk count") {
  for (int64_t chunks : {int64_t(1), int64_t(1000), int64_t(1) << 40, std::numeric_limits<int64_t>::max()}) {
    CAPTURE(chunks);
    std::vector<tg::Tensor> pieces;
    CHECK_NOTHROW(pieces = tg::chunk(tg::empty({0}), chunks));
    REQUIRE(pieces.size() == 1);
    CHECK(pieces[0].numel() == 0);
  }
  // A non-empty dim still gives at most `size` pieces.
  CHECK(tg::chunk(tg::zeros({3}), std::numeric_limits<int64_t>::max()).size() == 3);
}

TEST_CASE("embedding_dense_backward: an impossible num_weights is a tg::Error") {
  tg::Tensor grad = tg::ones({2, 3});
  tg::Tensor indices = tg::zeros({2}, tg::TensorOptions().dtype(tg::kLong));
  std::string message = thrown<tg::Error>([&] { tg::embedding_dense_backward(grad, indices, int64_t(1) << 40, -1, false); });
  CHECK(message != "<no exception>");
  CHECK_FALSE(contains(message, "<unexpected exception>"));
  message = thrown<tg::Error>([&] { tg::embedding_dense_backward(grad, indices, int64_t(1) << 62, -1, false); });
  CHECK(message != "<no exception>");
  CHECK_FALSE(contains(message, "<unexpected exception>"));
}

}  // namespace
