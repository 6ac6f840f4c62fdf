// The per-output computations of max_pool2d and avg_pool2d, written once for the CPU kernels
// (kernels/cpu/pooling_kernels.cpp) and the CUDA ones (kernels/cuda/pooling_ops.cu). Output
// (oy, ox) of a [height, width] plane covers rows oy * stride - pad + i * dilation, i < kernel,
// clipped to the plane (likewise for columns); indices are flat within the plane.
#pragma once

#include <cstdint>

#include "host_device_math.h"
#include "pooling_shape.h"

namespace tg {

// The input rows (or columns) avg_pool2d's window `o` covers: [begin, end) before clipping
// to [0, n), as its divisor counts padding.
struct Window {
  int64_t begin, end;
};

TG_HOST_DEVICE inline Window pooling_window(int64_t o, int64_t kernel, int64_t stride, int64_t pad, int64_t n) {
  const int64_t begin = o * stride - pad;
  const int64_t end = begin + kernel;
  return {begin, end < n + pad ? end : n + pad};
}

TG_HOST_DEVICE inline int64_t clip_begin(Window w) { return w.begin > 0 ? w.begin : 0; }
TG_HOST_DEVICE inline int64_t clip_end(Window w, int64_t n) { return w.end < n ? w.end : n; }

// avg_pool2d's divisor of window (wy, wx): the override when given, or its size counting
// padding, or the number of input elements it covers.
TG_HOST_DEVICE inline int64_t avg_pool_divisor(Window wy, Window wx, int64_t height, int64_t width,
                                               bool count_include_pad, bool has_override, int64_t divisor_override) {
  if (has_override) return divisor_override;
  if (count_include_pad) return (wy.end - wy.begin) * (wx.end - wx.begin);
  return (clip_end(wy, height) - clip_begin(wy)) * (clip_end(wx, width) - clip_begin(wx));
}

// The maximum of output (oy, ox)'s window and its flat index: the first NaN wins and stays,
// otherwise the first of equal maxima. load(offset) gives the element as T; -1 for an empty
// window (value -inf).
TG_EXEC_CHECK_DISABLE
template <typename T, typename Load>
TG_HOST_DEVICE inline void max_pool_window(const Pool2dShape& s, int64_t oy, int64_t ox, const Load& load, T& best,
                                           int64_t& best_index) {
  best = -T(INFINITY);
  best_index = -1;
  for (int64_t i = 0; i < s.kernel[0]; ++i) {
    const int64_t row = oy * s.stride[0] - s.padding[0] + i * s.dilation[0];
    if (row < 0 || row >= s.height) continue;
    for (int64_t j = 0; j < s.kernel[1]; ++j) {
      const int64_t column = ox * s.stride[1] - s.padding[1] + j * s.dilation[1];
      if (column < 0 || column >= s.width) continue;
      const T v = load(row * s.width + column);
      const bool best_nan = best != best, v_nan = v != v;
      if (best_index < 0 || (!best_nan && (v > best || v_nan))) {
        best = v;
        best_index = row * s.width + column;
      }
    }
  }
}

// The sum of output (oy, ox)'s window of avg_pool2d, divided by its divisor.
TG_EXEC_CHECK_DISABLE
template <typename T, typename Load>
TG_HOST_DEVICE inline T avg_pool_window(const Pool2dShape& s, int64_t oy, int64_t ox, bool count_include_pad,
                                        bool has_override, int64_t divisor_override, const Load& load) {
  const Window wy = pooling_window(oy, s.kernel[0], s.stride[0], s.padding[0], s.height);
  const Window wx = pooling_window(ox, s.kernel[1], s.stride[1], s.padding[1], s.width);
  T sum = 0;
  for (int64_t row = clip_begin(wy); row < clip_end(wy, s.height); ++row) {
    for (int64_t column = clip_begin(wx); column < clip_end(wx, s.width); ++column) sum += load(row * s.width + column);
  }
  const int64_t divisor = avg_pool_divisor(wy, wx, s.height, s.width, count_include_pad, has_override, divisor_override);
  return sum / static_cast<T>(divisor);
}

}  // namespace tg
