// Issue 13, case 1: every size, stride and storage-byte computation checks for overflow
// (runtime/core/checked_math.h) and raises tg::Error instead of wrapping around.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include <tensorgen/tensorgen.h>

#include "../unit/test_helpers.h"

namespace {

using test_helpers::contains;
using test_helpers::thrown;

constexpr int64_t k62 = int64_t(1) << 62;

TEST_CASE("overflow: a numel that wraps to a small number is refused") {
  // (2^62 + 1) * 4 wraps to 4 in 64 bits: before the fix this allocated 16 bytes.
  std::string message = thrown<tg::Error>([] { tg::empty({k62 + 1, 4}); });
  CHECK(contains(message, "overflow"));
  CHECK(contains(thrown<tg::Error>([] { tg::empty({int64_t(1) << 32, int64_t(1) << 32}); }), "overflow"));
  CHECK(contains(thrown<tg::Error>([] { tg::full({int64_t(1) << 40, int64_t(1) << 40, 8}, 1); }), "overflow"));
  CHECK(contains(thrown<tg::Error>([] { tg::zeros({std::numeric_limits<int64_t>::max(), 2}); }), "overflow"));
}

TEST_CASE("overflow: numel that fits but whose bytes do not is refused") {
  // 2^62 floats is 2^64 bytes: numel fits in int64, the byte count does not.
  CHECK(contains(thrown<tg::Error>([] { tg::empty({k62}); }), "overflow"));
}

TEST_CASE("overflow: a zero-size dim makes a huge shape legal, as in PyTorch") {
  tg::Tensor t = tg::empty({k62, 4, 0});
  CHECK(t.numel() == 0);
  // Its contiguous strides must still fit: here stride(0) would be 2^64.
  CHECK(contains(thrown<tg::Error>([] { tg::empty({0, k62, 8}); }), "overflow"));
}

// Session 12 checks the sizes of a new tensor in one pass and calls the checked functions
// only when that pass finds something wrong: each case must still raise the error of the
// check that fails first, word for word.
TEST_CASE("overflow: each bad shape of a new tensor raises the first failing check's error") {
  const std::string tail = " would overflow a 64-bit integer; tensors that large cannot exist";
  CHECK(thrown<tg::Error>([] { tg::empty({k62 + 1, 4}); }) ==
        "[empty] the number of elements of a tensor with sizes [4611686018427387905, 4]" + tail);
  CHECK(thrown<tg::Error>([] { tg::empty({k62}); }) ==
        "[empty] the storage size in bytes of a tensor with sizes [4611686018427387904]" + tail);
  // The element count is 0, so only the strides (made by the TensorImpl) overflow.
  CHECK(thrown<tg::Error>([] { tg::empty({0, k62, 8}); }) ==
        "[tensor] the contiguous strides of a tensor with sizes [0, 4611686018427387904, 8]" + tail);
  // Valid shapes: contiguous strides (a size-1 dim keeps its neighbour's), exact numel.
  tg::Tensor t = tg::empty({3, 1, 4});
  CHECK(t.strides() == tg::IntArrayRef({4, 4, 1}));
  CHECK(t.numel() == 12);
  CHECK(t.is_contiguous());
  tg::Tensor huge_empty = tg::empty({k62, 4, 0});
  CHECK(huge_empty.numel() == 0);
  CHECK(huge_empty.is_contiguous());
}

TEST_CASE("overflow: strides reaching past int64 are refused by as_strided") {
  tg::Tensor t = tg::zeros({4});
  CHECK(contains(thrown<tg::Error>([&] { t.as_strided({3}, {k62}); }), "overflow"));
  CHECK(contains(thrown<tg::Error>([&] { t.as_strided({k62, 4}, {1, 1}); }), "overflow"));
}

TEST_CASE("overflow: view and reshape to an overflowing shape are refused") {
  tg::Tensor t = tg::zeros({4});
  std::string message = thrown<tg::Error>([&] { t.view({k62 + 1, 4}); });
  CHECK(message != "<no exception>");
  CHECK_FALSE(contains(message, "<unexpected exception>"));
  message = thrown<tg::Error>([&] { t.reshape({k62 + 1, 4}); });
  CHECK(message != "<no exception>");
  CHECK_FALSE(contains(message, "<unexpected exception>"));
}

TEST_CASE("overflow: a memory request the allocator cannot meet is an OutOfMemoryError") {
  // 2^50 bytes: representable, never available.
  std::string message = thrown<tg::OutOfMemoryError>([] { tg::empty({int64_t(1) << 48}); });
  CHECK(message != "<no exception>");
  CHECK_FALSE(contains(message, "<unexpected exception>"));
}

}  // namespace

namespace {

// Found by the operator sweep under UBSan: the sum of split sizes wrapped around.
TEST_CASE("overflow: split_with_sizes whose sizes sum past int64 is refused") {
  tg::Tensor t = tg::zeros({3});
  std::string message = thrown<tg::Error>([&] { tg::split_with_sizes(t, {k62 + 3, std::numeric_limits<int64_t>::max()}); });
  CHECK(contains(message, "int64"));
}

}  // namespace

namespace {

// Found by the operator sweep under UBSan (session 7): repeat of an empty tensor expands to a
// shape such as [2^63 - 1, 1, 5, 0], whose numel is 0, but reshape's stride computation and
// flatten multiplied its sizes in plain int64 and overflowed before reaching the zero. Under
// UBSan these cases stopped before the fix; without it the wrapped value happened not to matter.
TEST_CASE("overflow: huge sizes beside a zero-size dim in repeat, reshape and flatten") {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  tg::Tensor r = tg::empty({0}).repeat({kMax, 5});
  CHECK(r.sizes().vec() == std::vector<int64_t>{kMax, 0});
  tg::Tensor e = tg::empty({0}).reshape({1, 1, 1, 0}).expand({kMax, 1, 5, 0});
  CHECK(e.reshape({kMax, 5, 0}).numel() == 0);
  CHECK(e.flatten(1, 2).sizes().vec() == std::vector<int64_t>{kMax, 5, 0});
  // A merged dim that does not fit in int64 cannot exist, even with numel 0.
  CHECK(contains(thrown<tg::Error>([&] { e.flatten(0, 2); }), "overflow"));
  CHECK(contains(thrown<tg::Error>([] { tg::zeros({5}).repeat({kMax}); }), "overflow"));
  CHECK(contains(thrown<tg::Error>([] { tg::repeat_interleave(tg::zeros({5}), kMax, 0); }), "overflow"));
}

}  // namespace

TEST_CASE("overflow: slice with a huge step, and of a dim with a huge stride") {
  // ceil(5 / step) was computed as (5 + step - 1) / step, which wraps for step near int64's max.
  const tg::Tensor t = tg::arange(5);
  const int64_t max = std::numeric_limits<int64_t>::max();
  tg::Tensor one = t.slice(0, 1, std::nullopt, max);
  CHECK(one.sizes() == tg::IntArrayRef{1});
  CHECK(one.item<int64_t>() == 1);
  CHECK(t.slice(0, 2, 2, max).numel() == 0);
  // A size-1 dim may carry any stride; sliced with step 10, 2^60 * 10 would pass int64 (the
  // operator sweep's case, under UBSan): the stride is kept. A small one is still multiplied.
  const int64_t k60 = int64_t(1) << 60;
  tg::Tensor wide = tg::zeros({1}).as_strided({1, 1}, {k60, 1});
  tg::Tensor sliced = wide.slice(0, 0, std::nullopt, 10);
  CHECK(sliced.sizes() == tg::IntArrayRef{1, 1});
  CHECK(sliced.strides()[0] == k60);
  CHECK(sliced.sum().item<float>() == 0.0f);
  CHECK(tg::zeros({1, 1}).slice(0, 0, std::nullopt, 10).strides()[0] == 10);
  // An empty tensor's dims may be as wide as they like: a start far along one keeps the offset.
  tg::Tensor empty = tg::zeros({1}).as_strided({20, 0}, {k62, 1});
  tg::Tensor tail = empty.slice(0, 10);
  CHECK(tail.sizes() == tg::IntArrayRef{10, 0});
  CHECK(tail.storage_offset() == 0);
  CHECK(tg::arange(5).slice(0, 5).storage_offset() == 5);  // PyTorch's offset where it fits
}
