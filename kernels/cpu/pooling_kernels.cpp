// CPU kernels of pooling (schemas/pooling.yaml): max and average pooling, sliding and adaptive,
// 2-d and 3-d, and their backward operators. Every operator is one of four cores below over a
// PoolShape (2-d as 3-d over a depth of 1); every [D, H, W] plane (the leading dims flattened)
// is pooled on its own with the window computations of pooling_window.h (shared with the
// CUDA kernels). Indices are flat within the plane: (z * H + y) * W + x.
#include <algorithm>
#include <cmath>
#include <vector>

#include "NativeFunctions.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "dtype_dispatch.h"
#include "index_rules.h"
#include "pooling_window.h"
#include "scalar_math.h"

namespace tg {

namespace {

// Calls cell(plane, wz, wy, wx, o) for every output o (flat, in order) and its windows.
template <typename Cell>
void for_each_window(const PoolShape& s, const Cell& cell) {
  int64_t o = 0;
  for (int64_t p = 0; p < s.planes; ++p) {
    for (int64_t oz = 0; oz < s.output[0]; ++oz) {
      const Window wz = pooling_window(s, 0, oz);
      for (int64_t oy = 0; oy < s.output[1]; ++oy) {
        const Window wy = pooling_window(s, 1, oy);
        for (int64_t ox = 0; ox < s.output[2]; ++ox) cell(p, wz, wy, pooling_window(s, 2, ox), o++);
      }
    }
  }
}

// Positions first, first + step, ... < end of a window, clipped to the input.
struct ClippedWindow {
  int64_t first, end, step;
};

ClippedWindow clipped_window(const PoolShape& s, int d, int64_t o) {
  const Window w = pooling_window(s, d, o);
  const int64_t first = w.begin >= 0 ? w.begin : w.begin + (-w.begin + w.step - 1) / w.step * w.step;
  return {first, std::min(w.end, s.input[d]), w.step};
}

// The max pool of a 2-d sliding window (depth 1): the windows along x are clipped once for
// all rows and planes, and each output reads its box with no bounds checks. The same
// elements in the same order as max_pool_window; working out every window per output took
// 1/4 of the time (max_pool2d 2x2 of 8x64x56x56: ratio to LibTorch 2.15 0.91-0.94 before,
// 1.17-1.24 after, 4 alternating runs each).
template <typename scalar_t, typename T>
void max_pool_2d(const PoolShape& s, const scalar_t* x, scalar_t* y, int64_t* at) {
  std::vector<ClippedWindow> columns(static_cast<size_t>(s.output[2]));
  for (int64_t ox = 0; ox < s.output[2]; ++ox) columns[ox] = clipped_window(s, 2, ox);
  const int64_t width = s.input[2];
  int64_t o = 0;
  for (int64_t p = 0; p < s.planes; ++p) {
    const scalar_t* plane = x + p * s.input_plane();
    for (int64_t oy = 0; oy < s.output[1]; ++oy) {
      const ClippedWindow rows = clipped_window(s, 1, oy);
      for (const ClippedWindow& column : columns) {
        T best = -T(INFINITY);
        int64_t best_index = -1;
        for (int64_t row = rows.first; row < rows.end; row += rows.step) {
          for (int64_t offset = row * width + column.first; offset < row * width + column.end; offset += column.step) {
            max_pool_step(cpu::convert<T>(plane[offset]), offset, best, best_index);
          }
        }
        y[o] = cpu::convert<scalar_t>(best);
        at[o] = best_index;
        ++o;
      }
    }
  }
}

void max_pool(const char* op, const PoolShape& s, const Tensor& self, const Tensor& out,
              const Tensor& indices) {
  TG_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
    using T = opmath_t<scalar_t>;
    const Tensor input = cpu::contiguous_as(self, self.scalar_type());
    const scalar_t* x = input.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    int64_t* at = indices.data_ptr<int64_t>();
    if (!s.adaptive && s.input[0] == 1 && s.kernel[0] == 1 && s.padding[0] == 0) {  // 2-d: depth window {0}
      max_pool_2d<scalar_t, T>(s, x, y, at);
      return;
    }
    for_each_window(s, [&](int64_t p, Window wz, Window wy, Window wx, int64_t o) {
      const scalar_t* plane = x + p * s.input_plane();
      T best;
      int64_t best_index;
      max_pool_window(s, wz, wy, wx, [plane](int64_t offset) { return cpu::convert<T>(plane[offset]); }, best,
                      best_index);
      y[o] = cpu::convert<scalar_t>(best);
      at[o] = best_index;
    });
  });
}

// grad_input[plane, indices[plane, o]] += grad_output[plane, o].
void max_pool_backward(const char* op, const PoolShape& s, const Tensor& grad_output, const Tensor& indices,
                       const Tensor& grad_input) {
  const int64_t in_plane = s.input_plane(), out_plane = s.output_plane();
  TG_DISPATCH_FLOATING_TYPES(grad_input.scalar_type(), op, [&] {
    using T = opmath_t<scalar_t>;
    const Tensor grad_t = cpu::contiguous_as(grad_output, grad_input.scalar_type());
    const Tensor index_t = check_max_pool_indices(op, indices, in_plane);
    const scalar_t* g = grad_t.data_ptr<scalar_t>();
    const int64_t* at = index_t.data_ptr<int64_t>();
    std::vector<T> sums(static_cast<size_t>(s.planes * in_plane), T(0));
    for (int64_t p = 0; p < s.planes; ++p) {
      for (int64_t o = 0; o < out_plane; ++o) {
        sums[p * in_plane + at[p * out_plane + o]] += cpu::convert<T>(g[p * out_plane + o]);
      }
    }
    cpu::store_row(static_cast<char*>(grad_input.data_ptr()), sizeof(scalar_t), grad_input.scalar_type(),
                   sums.data(), static_cast<int64_t>(sums.size()));
  });
}

void avg_pool(const char* op, const PoolShape& s, AvgPoolDivisor divisor, const Tensor& self,
              const Tensor& out) {
  TG_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
    using T = opmath_t<scalar_t>;
    const Tensor input = cpu::contiguous_as(self, self.scalar_type());
    const scalar_t* x = input.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    for_each_window(s, [&](int64_t p, Window wz, Window wy, Window wx, int64_t o) {
      const scalar_t* plane = x + p * s.input_plane();
      y[o] = cpu::convert<scalar_t>(avg_pool_window<T>(
          s, wz, wy, wx, divisor, [plane](int64_t offset) { return cpu::convert<T>(plane[offset]); }));
    });
  });
}

// Each output's share (grad / divisor) added to the input elements its window covers.
void avg_pool_backward(const char* op, const PoolShape& s, AvgPoolDivisor divisor, const Tensor& grad_output,
                       const Tensor& grad_input) {
  TG_DISPATCH_FLOATING_TYPES(grad_input.scalar_type(), op, [&] {
    using T = opmath_t<scalar_t>;
    const Tensor grad_t = cpu::contiguous_as(grad_output, grad_input.scalar_type());
    const scalar_t* g = grad_t.data_ptr<scalar_t>();
    std::vector<T> sums(static_cast<size_t>(s.planes * s.input_plane()), T(0));
    for_each_window(s, [&](int64_t p, Window wz, Window wy, Window wx, int64_t o) {
      T* plane = sums.data() + p * s.input_plane();
      const T share = cpu::convert<T>(g[o]) / static_cast<T>(avg_pool_divisor(s, wz, wy, wx, divisor));
      for (int64_t z = clip_begin(wz); z < clip_end(wz, s.input[0]); ++z) {
        for (int64_t y = clip_begin(wy); y < clip_end(wy, s.input[1]); ++y) {
          T* row = plane + (z * s.input[1] + y) * s.input[2];
          for (int64_t x = clip_begin(wx); x < clip_end(wx, s.input[2]); ++x) row[x] += share;
        }
      }
    });
    cpu::store_row(static_cast<char*>(grad_input.data_ptr()), sizeof(scalar_t), grad_input.scalar_type(),
                   sums.data(), static_cast<int64_t>(sums.size()));
  });
}

}  // namespace

// The operators: each computes its PoolShape and runs a core.

void native::max_pool2d_with_indices_out_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                             IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                             const Tensor& out, const Tensor& indices) {
  const char* op = "max_pool2d";
  max_pool(op, max_pool_shape<2>(op, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode), self, out,
           indices);
}

void native::max_pool3d_with_indices_out_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                             IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                             const Tensor& out, const Tensor& indices) {
  const char* op = "max_pool3d";
  max_pool(op, max_pool_shape<3>(op, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode), self, out,
           indices);
}

void native::adaptive_max_pool2d_out_cpu(const Tensor& self, IntArrayRef output_size, const Tensor& out,
                                         const Tensor& indices) {
  const char* op = "adaptive_max_pool2d";
  max_pool(op, adaptive_pool_shape<2>(op, self.sizes(), output_size), self, out, indices);
}

void native::adaptive_max_pool3d_out_cpu(const Tensor& self, IntArrayRef output_size, const Tensor& out,
                                         const Tensor& indices) {
  const char* op = "adaptive_max_pool3d";
  max_pool(op, adaptive_pool_shape<3>(op, self.sizes(), output_size), self, out, indices);
}

void native::max_pool2d_with_indices_backward_out_cpu(const Tensor& grad_output, const Tensor& self,
                                                      IntArrayRef kernel_size, IntArrayRef stride,
                                                      IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                                      const Tensor& indices, const Tensor& grad_input) {
  const char* op = "max_pool2d_backward";
  max_pool_backward(op, max_pool_shape<2>(op, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode),
                    grad_output, indices, grad_input);
}

void native::max_pool3d_with_indices_backward_out_cpu(const Tensor& grad_output, const Tensor& self,
                                                      IntArrayRef kernel_size, IntArrayRef stride,
                                                      IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                                      const Tensor& indices, const Tensor& grad_input) {
  const char* op = "max_pool3d_backward";
  max_pool_backward(op, max_pool_shape<3>(op, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode),
                    grad_output, indices, grad_input);
}

void native::adaptive_max_pool2d_backward_out_cpu(const Tensor& grad_output, const Tensor& self,
                                                  const Tensor& indices, const Tensor& grad_input) {
  const char* op = "adaptive_max_pool2d_backward";
  max_pool_backward(op, adaptive_backward_shape<2>(op, self.sizes(), grad_output.sizes()), grad_output, indices,
                    grad_input);
}

void native::adaptive_max_pool3d_backward_out_cpu(const Tensor& grad_output, const Tensor& self,
                                                  const Tensor& indices, const Tensor& grad_input) {
  const char* op = "adaptive_max_pool3d_backward";
  max_pool_backward(op, adaptive_backward_shape<3>(op, self.sizes(), grad_output.sizes()), grad_output, indices,
                    grad_input);
}

void native::avg_pool2d_out_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                                const Tensor& out) {
  const char* op = "avg_pool2d";
  avg_pool(op, avg_pool_shape<2>(op, self.sizes(), kernel_size, stride, padding, ceil_mode),
           avg_pool_divisor_options(count_include_pad, divisor_override), self, out);
}

void native::avg_pool3d_out_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                                const Tensor& out) {
  const char* op = "avg_pool3d";
  avg_pool(op, avg_pool_shape<3>(op, self.sizes(), kernel_size, stride, padding, ceil_mode),
           avg_pool_divisor_options(count_include_pad, divisor_override), self, out);
}

void native::adaptive_avg_pool2d_out_cpu(const Tensor& self, IntArrayRef output_size, const Tensor& out) {
  const char* op = "adaptive_avg_pool2d";
  avg_pool(op, adaptive_pool_shape<2>(op, self.sizes(), output_size), kAdaptiveAvgPoolDivisor, self, out);
}

void native::adaptive_avg_pool3d_out_cpu(const Tensor& self, IntArrayRef output_size, const Tensor& out) {
  const char* op = "adaptive_avg_pool3d";
  avg_pool(op, adaptive_pool_shape<3>(op, self.sizes(), output_size), kAdaptiveAvgPoolDivisor, self, out);
}

void native::avg_pool2d_backward_out_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                         IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                                         bool count_include_pad, std::optional<int64_t> divisor_override,
                                         const Tensor& grad_input) {
  const char* op = "avg_pool2d_backward";
  avg_pool_backward(op, avg_pool_shape<2>(op, self.sizes(), kernel_size, stride, padding, ceil_mode),
                    avg_pool_divisor_options(count_include_pad, divisor_override), grad_output, grad_input);
}

void native::avg_pool3d_backward_out_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                         IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                                         bool count_include_pad, std::optional<int64_t> divisor_override,
                                         const Tensor& grad_input) {
  const char* op = "avg_pool3d_backward";
  avg_pool_backward(op, avg_pool_shape<3>(op, self.sizes(), kernel_size, stride, padding, ceil_mode),
                    avg_pool_divisor_options(count_include_pad, divisor_override), grad_output, grad_input);
}

void native::adaptive_avg_pool2d_backward_out_cpu(const Tensor& grad_output, const Tensor& self,
                                                  const Tensor& grad_input) {
  const char* op = "adaptive_avg_pool2d_backward";
  avg_pool_backward(op, adaptive_backward_shape<2>(op, self.sizes(), grad_output.sizes()), kAdaptiveAvgPoolDivisor,
                    grad_output, grad_input);
}

void native::adaptive_avg_pool3d_backward_out_cpu(const Tensor& grad_output, const Tensor& self,
                                                  const Tensor& grad_input) {
  const char* op = "adaptive_avg_pool3d_backward";
  avg_pool_backward(op, adaptive_backward_shape<3>(op, self.sizes(), grad_output.sizes()), kAdaptiveAvgPoolDivisor,
                    grad_output, grad_input);
}

}  // namespace tg
