// The per-output computations of pooling (max and average, sliding and adaptive, 2-d and 3-d),
// written once for the CPU kernels (kernels/cpu/pooling_kernels.cpp) and the CUDA ones
// (kernels/cuda/pooling_ops.cu). Output (oz, oy, ox) of a [D, H, W] plane covers, along each
// dim, the window of pooling_window(): positions begin, begin + step, ... < end, of which
// those in [0, n) are read; indices are flat within the plane.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "host_device_math.h"
#include "pooling_shape.h"

namespace tg {

// Along one dim: positions begin + i * step < end. Average pooling's windows (step 1) may
// reach into the padding, as its divisor counts it: end <= n + pad.
struct Window {
  int64_t begin, end, step;
};

// The window of output o along dim d (0 depth, 1 height, 2 width). Adaptive: Note [Adaptive
// pooling windows]. Sliding: o * stride - pad + i * dilation for i < kernel.
//
// Note [Adaptive pooling windows]
// Output cell o of `outs` over an input of size n covers [floor(o n / outs), ceil((o + 1) n /
// outs)), as PyTorch's adaptive pools do: the windows cover the input, may overlap, and differ
// in size by at most one. Input position h is covered by cells [floor(h outs / n),
// ceil((h + 1) outs / n)).
TG_HOST_DEVICE inline Window pooling_window(const PoolShape& s, int d, int64_t o) {
  const int64_t n = s.input[d];
  if (s.adaptive) {
    const int64_t outs = s.output[d];
    return {(o * n) / outs, ((o + 1) * n + outs - 1) / outs, 1};
  }
  const int64_t begin = o * s.stride[d] - s.padding[d];
  const int64_t end = begin + (s.kernel[d] - 1) * s.dilation[d] + 1;
  const int64_t padded_end = n + s.padding[d];
  return {begin, end < padded_end ? end : padded_end, s.dilation[d]};
}

// A step-1 window clipped to [0, n).
TG_HOST_DEVICE inline int64_t clip_begin(Window w) { return w.begin > 0 ? w.begin : 0; }
TG_HOST_DEVICE inline int64_t clip_end(Window w, int64_t n) { return w.end < n ? w.end : n; }

// The outputs along dim d whose window may cover input position h: [first, last].
struct OutputRange {
  int64_t first, last;
};

TG_HOST_DEVICE inline OutputRange covering_outputs(const PoolShape& s, int d, int64_t h) {
  const int64_t n = s.input[d], outs = s.output[d];
  if (s.adaptive) return {(h * outs) / n, ((h + 1) * outs + n - 1) / n - 1};
  const int64_t reach = h + s.padding[d] - s.kernel[d];  // o * stride - pad + kernel > h  <=>  o * stride > reach
  const int64_t first = reach < 0 ? 0 : reach / s.stride[d] + 1;
  const int64_t last = (h + s.padding[d]) / s.stride[d];  // o * stride - pad <= h
  return {first, last < outs - 1 ? last : outs - 1};
}

// The options of average pooling that decide its divisor (adaptive: {true, false, 0}).
struct AvgPoolDivisor {
  bool count_include_pad;
  bool has_override;
  int64_t divisor_override;
};

inline AvgPoolDivisor avg_pool_divisor_options(bool count_include_pad, std::optional<int64_t> divisor_override) {
  return {count_include_pad, divisor_override.has_value(), divisor_override.value_or(0)};
}

// Adaptive average pooling divides by its window's size.
constexpr AvgPoolDivisor kAdaptiveAvgPoolDivisor{true, false, 0};

// The divisor of the window box (wz, wy, wx): the override when given, or its size counting
// padding, or the number of input elements it covers.
TG_HOST_DEVICE inline int64_t avg_pool_divisor(const PoolShape& s, Window wz, Window wy, Window wx,
                                               AvgPoolDivisor d) {
  if (d.has_override) return d.divisor_override;
  if (d.count_include_pad) return (wz.end - wz.begin) * (wy.end - wy.begin) * (wx.end - wx.begin);
  return (clip_end(wz, s.input[0]) - clip_begin(wz)) * (clip_end(wy, s.input[1]) - clip_begin(wy)) *
         (clip_end(wx, s.input[2]) - clip_begin(wx));
}

// One step of a window's maximum, elements taken in index order: v at `offset` replaces the
// best so far when it is the first, or larger, or a NaN (the first NaN wins and stays;
// otherwise the first of equal maxima). Start from best = -inf, best_index = -1.
template <typename T>
TG_HOST_DEVICE inline void max_pool_step(T v, int64_t offset, T& best, int64_t& best_index) {
  const bool best_nan = best != best, v_nan = v != v;
  if (best_index < 0 || (!best_nan && (v > best || v_nan))) {
    best = v;
    best_index = offset;
  }
}

// The maximum over the window box (wz, wy, wx) and its flat index (max_pool_step's order).
// load(offset) gives the element as T; -1 for a box that reads nothing (value -inf).
TG_EXEC_CHECK_DISABLE
template <typename T, typename Load>
TG_HOST_DEVICE inline void max_pool_window(const PoolShape& s, Window wz, Window wy, Window wx, const Load& load,
                                           T& best, int64_t& best_index) {
  best = -T(INFINITY);
  best_index = -1;
  for (int64_t z = wz.begin; z < wz.end && z < s.input[0]; z += wz.step) {
    if (z < 0) continue;
    for (int64_t y = wy.begin; y < wy.end && y < s.input[1]; y += wy.step) {
      if (y < 0) continue;
      for (int64_t x = wx.begin; x < wx.end && x < s.input[2]; x += wx.step) {
        if (x < 0) continue;
        const int64_t offset = (z * s.input[1] + y) * s.input[2] + x;
        max_pool_step(load(offset), offset, best, best_index);
      }
    }
  }
}

// The mean over the window box (wz, wy, wx): its sum divided by avg_pool_divisor.
TG_EXEC_CHECK_DISABLE
template <typename T, typename Load>
TG_HOST_DEVICE inline T avg_pool_window(const PoolShape& s, Window wz, Window wy, Window wx, AvgPoolDivisor d,
                                        const Load& load) {
  T sum = 0;
  for (int64_t z = clip_begin(wz); z < clip_end(wz, s.input[0]); ++z) {
    for (int64_t y = clip_begin(wy); y < clip_end(wy, s.input[1]); ++y) {
      const int64_t row = (z * s.input[1] + y) * s.input[2];
      for (int64_t x = clip_begin(wx); x < clip_end(wx, s.input[2]); ++x) sum += load(row + x);
    }
  }
  return sum / static_cast<T>(avg_pool_divisor(s, wz, wy, wx, d));
}

// Coordinates (plane, z, y, x) of flat element e of [planes, sizes[0], sizes[1], sizes[2]].
struct PoolCell {
  int64_t plane, z, y, x;
};

TG_HOST_DEVICE inline PoolCell pool_cell(int64_t e, const std::array<int64_t, 3>& sizes) {
  const int64_t x = e % sizes[2];
  e /= sizes[2];
  const int64_t y = e % sizes[1];
  e /= sizes[1];
  return {e / sizes[0], e % sizes[0], y, x};
}

}  // namespace tg
