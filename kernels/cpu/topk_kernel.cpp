// CPU kernel of topk: per (o, i) of the [outer, size, inner] blocks (dim_blocks.h), the k
// largest (smallest) of in[o, :, i] in order, with their positions. NaN is larger than every
// number, and equal values keep their index order (the order a stable sort would give), so
// sorted=false returns the same as sorted=true.
#include <algorithm>
#include <type_traits>
#include <utility>
#include <vector>


#include "NativeFunctions.h"
#include "core/wrap_dim.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "cpu/parallel.h"
#include "cpu/vec.h"
#include "dim_blocks.h"
#include "dtype_dispatch.h"
#include "scalar_math.h"

namespace tg {

namespace {

// Up to this k a slice goes through the running threshold. See Note [topk by a running threshold].
constexpr int64_t kThresholdMaxK = 32;

// Whether x, read after y (at a larger index), comes before y in the output.
template <bool Largest, typename T>
bool comes_before_earlier(T x, T y) {
  if constexpr (Largest) {
    return x > y || (math::is_nan(x) && !math::is_nan(y));
  } else {
    return x < y || (!math::is_nan(x) && math::is_nan(y));
  }
}

// Whether (x, i) comes before (y, j) in the output: a strict total order, as indices differ.
template <bool Largest, typename T>
bool comes_before(const std::pair<T, int64_t>& x, const std::pair<T, int64_t>& y) {
  if (x.second < y.second) return !comes_before_earlier<Largest>(y.first, x.first);
  return comes_before_earlier<Largest>(x.first, y.first);
}

// Note [topk by a running threshold]
// For a small k the best k values read so far are kept in order; every further value is
// compared with the k-th best only (almost always losing), and the rare winner is inserted in
// place. Values are read in index order, so a value equal to one held loses to it, as the
// index order of ties asks. A partial sort of (value, index) pairs built for the whole slice
// spent most of its time building them: 5 ms against LibTorch's 2.7 for k = 5 of 1024 x 1000.
// The insertion costs up to k moves, so a larger k selects with nth_element instead.
//
// Skipping: once k values are held, `skip(j, threshold)` returns the first index from j on
// of a block of kSkipBlock values that may hold a winner (or where fewer than that are
// left); the block is then read one value at a time as before. Float rows in memory order
// skip with AVX2 compares (8 values a step): k = 5 of 1024 x 1000 floats took 2.21-2.24 ms
// before and 1.37-1.39 ms after (alternating runs, load 3-4; LibTorch 2.15 2.6-2.8 ms).
constexpr int64_t kSkipBlock = 8;

template <bool Largest, typename T, typename Load, typename Skip>
void select_by_threshold(int64_t size, int64_t k, const Load& load, T* best, int64_t* best_index, const Skip& skip) {
  int64_t held = 0;
  int64_t j = 0;
  while (j < size) {
    if (held == k) j = skip(j, best[k - 1]);
    const int64_t block_end = std::min(size, held == k ? j + kSkipBlock : j + 1);
    for (; j < block_end; ++j) {
      const T x = load(j);
      if (held == k && !comes_before_earlier<Largest>(x, best[k - 1])) continue;
      int64_t slot = held < k ? held++ : k - 1;
      for (; slot > 0 && comes_before_earlier<Largest>(x, best[slot - 1]); --slot) {
        best[slot] = best[slot - 1];
        best_index[slot] = best_index[slot - 1];
      }
      best[slot] = x;
      best_index[slot] = j;
    }
  }
}

// The skip of contiguous float rows: a block is skipped when no value in it is larger
// (smaller) than the threshold and none is NaN (a NaN block goes the slow way, which decides
// exactly). Nothing is skipped at a NaN threshold: every number beats it for the smallest.
template <bool Largest, typename V>
[[gnu::always_inline]] inline int64_t skip_float_blocks(const float* row, int64_t j, int64_t size, float threshold) {
  if (threshold != threshold) return j;
  static_assert(cpu::vec::kLanes<V> == kSkipBlock);
  const V t = cpu::vec::broadcast<V>(threshold);
  for (; j + kSkipBlock <= size; j += kSkipBlock) {
    const V v = cpu::vec::load<V>(row + j);
    const cpu::vec::MaskOf<V> may_win = (Largest ? v > t : v < t) | (v != v);
    using Words = uint64_t __attribute__((vector_size(32)));  // V is eight floats
    const Words words = __builtin_bit_cast(Words, may_win);
    if ((words[0] | words[1] | words[2] | words[3]) != 0) return j;
  }
  return j;
}

// (Through a template body: see leaf_sum_float_avx512 in reduction_kernels.cpp on clang.)
template <bool Largest>
TG_TARGET_AVX2 int64_t skip_float_blocks_avx2(const float* row, int64_t j, int64_t size, float threshold) {
  return skip_float_blocks<Largest, cpu::vec::Vec8>(row, j, size, threshold);
}

template <bool Largest, typename T, typename Load>
void select_by_nth_element(int64_t size, int64_t k, const Load& load, std::vector<std::pair<T, int64_t>>& pairs,
                           T* best, int64_t* best_index) {
  pairs.resize(static_cast<size_t>(size));
  for (int64_t j = 0; j < size; ++j) pairs[j] = {load(j), j};
  const auto order = comes_before<Largest, T>;
  if (k < size) std::nth_element(pairs.begin(), pairs.begin() + (k - 1), pairs.end(), order);
  std::sort(pairs.begin(), pairs.begin() + k, order);
  for (int64_t j = 0; j < k; ++j) {
    best[j] = pairs[j].first;
    best_index[j] = pairs[j].second;
  }
}

}  // namespace

void native::topk_out_cpu(const Tensor& self, int64_t k, int64_t dim, bool largest, bool /*sorted*/,
                          const Tensor& values, const Tensor& indices) {
  const DimBlocks b = blocks_around(self.sizes(), maybe_wrap_dim(dim, self.dim(), "topk"));
  if (values.numel() == 0) return;
  TG_DISPATCH_NUMERIC_TYPES(self.scalar_type(), "topk", [&] {
    using T = opmath_t<scalar_t>;
    const Tensor input = cpu::contiguous_as(self, self.scalar_type());
    const scalar_t* src = input.data_ptr<scalar_t>();
    scalar_t* out_values = values.data_ptr<scalar_t>();
    int64_t* out_indices = indices.data_ptr<int64_t>();
    // Float rows in memory order skip blocks of losers with AVX2 (see select_by_threshold).
    const bool skip_floats = std::is_same_v<scalar_t, float> && b.inner == 1 && cpu::vec::has_avx2_fma();
    const auto run = [&]<bool Largest>() {
      const int64_t grain = std::max<int64_t>(1, cpu::kParallelGrain / std::max<int64_t>(b.size, 1));
      cpu::parallel_for(b.outer * b.inner, grain, [&](int64_t begin, int64_t end) {
        std::vector<T> best(static_cast<size_t>(k));
        std::vector<int64_t> best_index(static_cast<size_t>(k));
        std::vector<std::pair<T, int64_t>> pairs;
        for (int64_t s = begin; s < end; ++s) {
          const int64_t o = s / b.inner, i = s % b.inner;
          const scalar_t* slice = src + o * b.size * b.inner + i;
          const auto load = [slice, inner = b.inner](int64_t j) { return cpu::convert<T>(slice[j * inner]); };
          const auto skip = [&](int64_t j, T threshold) -> int64_t {
            if constexpr (std::is_same_v<scalar_t, float>) {
              if (skip_floats) return skip_float_blocks_avx2<Largest>(slice, j, b.size, threshold);
            }
            return j;
          };
          if (k <= kThresholdMaxK) {
            select_by_threshold<Largest>(b.size, k, load, best.data(), best_index.data(), skip);
          } else {
            select_by_nth_element<Largest>(b.size, k, load, pairs, best.data(), best_index.data());
          }
          for (int64_t j = 0; j < k; ++j) {
            const int64_t at = (o * k + j) * b.inner + i;
            out_values[at] = cpu::convert<scalar_t>(best[j]);
            out_indices[at] = best_index[j];
          }
        }
      });
    };
    if (largest) {
      run.template operator()<true>();
    } else {
      run.template operator()<false>();
    }
  });
}

}  // namespace tg
