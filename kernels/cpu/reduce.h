// Reductions over a set of dims on the CPU. reduce_into walks the input once, in memory order
// (see Note [Iteration order]), and folds each element into the accumulator of its output
// position:
//
//   acc[j] = reducer.combine(acc[j], x)   for every element x of self, j = x's output index
//
// where j is the row-major index over self's kept dims (the dims not in `mask`). Whether the
// reduced dims are inner (one accumulator per row) or outer (a row of accumulators per input
// row), the input streams through memory. It may have any strides and dtype (elements load
// converted to In). The order in which elements reach an accumulator is unspecified.
//
// A Reducer has `acc_t combine(acc_t, In)`, and may have `acc_t reduce_row(acc_t, const In*,
// int64_t n)` that folds n contiguous elements into one accumulator (sum does it pairwise).
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/tensor.h"
#include "cpu/loops.h"
#include "cpu/strided_loop.h"
#include "cpu/vec.h"
#include "shape_utils.h"

namespace tg::cpu {

// slots[j] = combine(slots[j], values[j]) for j in [0, n): the step of a reduction over outer
// dims, which vectorises. It requests the input 2 KiB ahead, one request per cache line:
// rows of a page or less restart the hardware prefetchers at every page, and sum(0) of
// 4096 x 1024 floats stalled on its loads (3.66 -> 3.35 ms, medians of 9 alternating runs
// under load). A request past the row's end reads nothing wrong: prefetches never fault (the
// address is formed as an integer, as a pointer past the array would be undefined).
template <typename Acc, typename In, typename Reducer>
[[gnu::always_inline]] inline void combine_rows(Acc* slots, const In* values, int64_t n, const Reducer& reducer) {
  constexpr int64_t kLine = sizeof(In) < 64 ? 64 / sizeof(In) : 1;
  constexpr uintptr_t kAheadBytes = 2048;
  int64_t j = 0;
  for (; j + kLine <= n; j += kLine) {
    __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(values + j) + kAheadBytes));
    for (int64_t k = 0; k < kLine; ++k) slots[j + k] = reducer.combine(slots[j + k], values[j + k]);
  }
  for (; j < n; ++j) slots[j] = reducer.combine(slots[j], values[j]);
}

// The same compiled for AVX2: a float sum's double accumulators take 4 lanes, not 2.
template <typename Acc, typename In, typename Reducer>
TG_TARGET_AVX2 void combine_rows_avx2(Acc* slots, const In* values, int64_t n, const Reducer& reducer) {
  combine_rows(slots, values, n, reducer);
}

// Note [Blocks of outer rows]: a reduction over the leading dims of a contiguous input (sum(0)
// of a matrix) folds `rows` rows of `width` elements into one row of accumulators. Row by row
// (combine_rows), every element costs a load and a store of its accumulator besides its own
// load: for a float sum into double accumulators, 20 bytes of L1 traffic per 4 bytes read,
// and sum(0) of 4096 x 1024 floats ran at 7 GB/s where a plain sum streams at 15. Here the
// accumulators of a strip of kStrip columns stay in registers while kRowBlock rows go by,
// each folded in the same order as row by row, so the result is the same, bit for bit.
inline constexpr int64_t kRowBlock = 8;
inline constexpr int64_t kStrip = 32;

template <typename Acc, typename In, typename Reducer>
[[gnu::always_inline]] inline void combine_row_block(Acc* slots, const In* values, int64_t width, int64_t rows,
                                                     const Reducer& reducer) {
  int64_t j = 0;
  for (; j + kStrip <= width; j += kStrip) {
    Acc strip[kStrip];
    for (int64_t k = 0; k < kStrip; ++k) strip[k] = slots[j + k];
    for (int64_t r = 0; r < rows; ++r) {
      const In* row = values + r * width + j;
      for (int64_t k = 0; k < kStrip; ++k) strip[k] = reducer.combine(strip[k], row[k]);
    }
    for (int64_t k = 0; k < kStrip; ++k) slots[j + k] = strip[k];
  }
  for (; j < width; ++j) {
    Acc value = slots[j];
    for (int64_t r = 0; r < rows; ++r) value = reducer.combine(value, values[r * width + j]);
    slots[j] = value;
  }
}

template <typename Acc, typename In, typename Reducer>
TG_TARGET_AVX2 void combine_row_block_avx2(Acc* slots, const In* values, int64_t width, int64_t rows,
                                           const Reducer& reducer) {
  combine_row_block(slots, values, width, rows, reducer);
}

// The walk of reduce_into for one input geometry, worked out once: run() folds an input laid
// out as `self` was, at any address, into accumulators at any address (a launch replays it:
// cpu/launch.h). Precondition: self has elements.
template <typename In, typename Reducer>
class ReductionLoop {
 public:
  using Acc = typename Reducer::acc_t;

  ReductionLoop(const Tensor& self, const DimMask& mask)
      : loop_(make_loop(self, mask)),
        dtype_(self.scalar_type()),
        outer_width_(outer_width(self, mask)),
        outer_rows_(outer_width_ > 0 ? self.numel() / outer_width_ : 0) {}

  void run(const char* self_data, Acc* acc, const Reducer& reducer) const {
    if (outer_width_ > 0) return run_outer(reinterpret_cast<const In*>(self_data), acc, reducer);
    const ScalarType dtype = dtype_;
    RowInput<In> x;
    loop_.run_range({const_cast<char*>(self_data), reinterpret_cast<char*>(acc)}, 0, loop_.numel(),
                    [&](const auto& ptrs, const auto& strides, int64_t n) {
      // Without conversion the whole row is one chunk, so reduce_row sees all of it.
      const int64_t chunk = dtype == dtype_of<In> ? n : kRowChunk;
      for (int64_t begin = 0; begin < n; begin += chunk) {
        const int64_t m = std::min(chunk, n - begin);
        x.prepare(ptrs[0] + begin * strides[0], strides[0], dtype, m);
        if (strides[1] == 0) {
          Acc& slot = *reinterpret_cast<Acc*>(ptrs[1]);
          if constexpr (requires { reducer.reduce_row(slot, x.typed(), m); }) {
            if (x.contiguous()) {
              slot = reducer.reduce_row(slot, x.typed(), m);
              continue;
            }
          }
          Acc value = slot;
          for (int64_t j = 0; j < m; ++j) value = reducer.combine(value, x[j]);
          slot = value;
        } else if (strides[1] == static_cast<int64_t>(sizeof(Acc)) && x.contiguous()) {
          // A row of accumulators over a contiguous input row (a reduction over outer dims):
          // typed pointers, so that the compiler vectorises it.
          Acc* slots = reinterpret_cast<Acc*>(ptrs[1]) + begin;
          if (vec::has_avx2_fma()) {
            combine_rows_avx2(slots, x.typed(), m, reducer);
          } else {
            combine_rows(slots, x.typed(), m, reducer);
          }
        } else {
          char* slots = ptrs[1] + begin * strides[1];
          for (int64_t j = 0; j < m; ++j) {
            Acc& slot = *reinterpret_cast<Acc*>(slots + j * strides[1]);
            slot = reducer.combine(slot, x[j]);
          }
        }
      }
    });
  }

 private:
  // See Note [Blocks of outer rows].
  void run_outer(const In* x, Acc* acc, const Reducer& reducer) const {
    const int64_t width = outer_width_, rows = outer_rows_;
    const bool avx2 = vec::has_avx2_fma();
    for (int64_t r = 0; r < rows; r += kRowBlock) {
      const int64_t block = std::min(kRowBlock, rows - r);
      if (avx2) {
        combine_row_block_avx2(acc, x + r * width, width, block, reducer);
      } else {
        combine_row_block(acc, x + r * width, width, block, reducer);
      }
    }
  }

  // The width of the kept (inner) dims when self is contiguous in In and the reduced dims all
  // come before the kept ones (size-1 dims aside); 0 otherwise.
  static int64_t outer_width(const Tensor& self, const DimMask& mask) {
    if (self.scalar_type() != dtype_of<In> || !self.is_contiguous()) return 0;
    int64_t width = 1;
    bool kept_seen = false;
    for (int64_t d = 0; d < self.dim(); ++d) {
      if (self.size(d) == 1) continue;
      if (mask.test(static_cast<size_t>(d))) {
        if (kept_seen) return 0;
      } else {
        kept_seen = true;
        width *= self.size(d);
      }
    }
    return kept_seen && width < self.numel() ? width : 0;
  }

  // The input is operand 0, so its memory order decides the iteration order.
  static StridedLoop<2> make_loop(const Tensor& self, const DimMask& mask) {
    const IntArrayRef sizes = self.sizes();
    DimVector acc_strides(sizes.size(), 0);
    int64_t running = static_cast<int64_t>(sizeof(Acc));
    for (size_t d = sizes.size(); d-- > 0;) {
      if (mask.test(d)) continue;
      acc_strides[d] = running;
      running *= sizes[d];
    }
    const DimVector self_strides = byte_strides(self);
    return StridedLoop<2>(sizes, {static_cast<char*>(self.data_ptr()), nullptr},
                          {IntArrayRef(self_strides), IntArrayRef(acc_strides)});
  }

  StridedLoop<2> loop_;
  ScalarType dtype_;
  int64_t outer_width_, outer_rows_;
};

template <typename In, typename Reducer>
void reduce_into(typename Reducer::acc_t* acc, const Tensor& self, const DimMask& mask, const Reducer& reducer) {
  if (self.numel() == 0) return;
  ReductionLoop<In, Reducer>(self, mask).run(static_cast<const char*>(self.data_ptr()), acc, reducer);
}

}  // namespace tg::cpu
