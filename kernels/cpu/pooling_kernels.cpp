// CPU kernels of max_pool2d_with_indices and avg_pool2d and their backward operators. Every
// [H, W] plane (the leading dims flattened) is pooled on its own, with the window
// computations of pooling_window.h (shared with the CUDA kernels). Indices are flat within
// the plane: row * W + column.
#include <algorithm>
#include <cmath>
#include <limits>
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

Pool2dShape max_pool_shape(const char* op, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return pool2d_shape(op, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode, true);
}

Pool2dShape avg_pool_shape(const char* op, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode) {
  return pool2d_shape(op, self.sizes(), kernel_size, stride, padding, {1}, ceil_mode, false);
}

}  // namespace

void native::max_pool2d_with_indices_out_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                             IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                             const Tensor& out, const Tensor& indices) {
  const Pool2dShape s = max_pool_shape("max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode);
  TG_DISPATCH_FLOATING_TYPES(self.scalar_type(), "max_pool2d", [&] {
    using T = opmath_t<scalar_t>;
    const Tensor input = cpu::contiguous_as(self, self.scalar_type());
    const scalar_t* x = input.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    int64_t* at = indices.data_ptr<int64_t>();
    for (int64_t p = 0; p < s.planes; ++p) {
      const scalar_t* plane = x + p * s.height * s.width;
      const auto load = [plane](int64_t offset) { return cpu::convert<T>(plane[offset]); };
      for (int64_t oy = 0; oy < s.out_height; ++oy) {
        for (int64_t ox = 0; ox < s.out_width; ++ox) {
          T best;
          int64_t best_index;
          max_pool_window(s, oy, ox, load, best, best_index);
          const int64_t o = (p * s.out_height + oy) * s.out_width + ox;
          y[o] = cpu::convert<scalar_t>(best);
          at[o] = best_index;
        }
      }
    }
  });
}

void native::max_pool2d_with_indices_backward_out_cpu(const Tensor& grad_output, const Tensor& self,
                                                      IntArrayRef kernel_size, IntArrayRef stride,
                                                      IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                                      const Tensor& indices, const Tensor& grad_input) {
  const Pool2dShape s =
      max_pool_shape("max_pool2d_backward", self, kernel_size, stride, padding, dilation, ceil_mode);
  const int64_t plane_size = s.height * s.width, out_plane = s.out_height * s.out_width;
  TG_DISPATCH_FLOATING_TYPES(grad_input.scalar_type(), "max_pool2d_backward", [&] {
    using T = opmath_t<scalar_t>;
    const Tensor grad_t = cpu::contiguous_as(grad_output, grad_input.scalar_type());
    const Tensor index_t = check_max_pool_indices(indices, s.height, s.width);
    const scalar_t* g = grad_t.data_ptr<scalar_t>();
    const int64_t* at = index_t.data_ptr<int64_t>();
    std::vector<T> sums(static_cast<size_t>(s.planes * plane_size), T(0));
    for (int64_t p = 0; p < s.planes; ++p) {
      for (int64_t o = 0; o < out_plane; ++o) {
        const int64_t k = at[p * out_plane + o];
        sums[p * plane_size + k] += cpu::convert<T>(g[p * out_plane + o]);
      }
    }
    cpu::store_row(static_cast<char*>(grad_input.data_ptr()), sizeof(scalar_t), grad_input.scalar_type(),
                   sums.data(), static_cast<int64_t>(sums.size()));
  });
}

void native::avg_pool2d_out_cpu(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                                const Tensor& out) {
  const Pool2dShape s = avg_pool_shape("avg_pool2d", self, kernel_size, stride, padding, ceil_mode);
  TG_DISPATCH_FLOATING_TYPES(self.scalar_type(), "avg_pool2d", [&] {
    using T = opmath_t<scalar_t>;
    const Tensor input = cpu::contiguous_as(self, self.scalar_type());
    const scalar_t* x = input.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    for (int64_t p = 0; p < s.planes; ++p) {
      const scalar_t* plane = x + p * s.height * s.width;
      const auto load = [plane](int64_t offset) { return cpu::convert<T>(plane[offset]); };
      for (int64_t oy = 0; oy < s.out_height; ++oy) {
        for (int64_t ox = 0; ox < s.out_width; ++ox) {
          const T average = avg_pool_window<T>(s, oy, ox, count_include_pad, divisor_override.has_value(),
                                               divisor_override.value_or(0), load);
          y[(p * s.out_height + oy) * s.out_width + ox] = cpu::convert<scalar_t>(average);
        }
      }
    }
  });
}

void native::avg_pool2d_backward_out_cpu(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                                         IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                                         bool count_include_pad, std::optional<int64_t> divisor_override,
                                         const Tensor& grad_input) {
  const Pool2dShape s = avg_pool_shape("avg_pool2d_backward", self, kernel_size, stride, padding, ceil_mode);
  const int64_t plane_size = s.height * s.width;
  TG_DISPATCH_FLOATING_TYPES(grad_input.scalar_type(), "avg_pool2d_backward", [&] {
    using T = opmath_t<scalar_t>;
    const Tensor grad_t = cpu::contiguous_as(grad_output, grad_input.scalar_type());
    const scalar_t* g = grad_t.data_ptr<scalar_t>();
    std::vector<T> sums(static_cast<size_t>(s.planes * plane_size), T(0));
    for (int64_t p = 0; p < s.planes; ++p) {
      T* plane = sums.data() + p * plane_size;
      for (int64_t oy = 0; oy < s.out_height; ++oy) {
        const Window wy = pooling_window(oy, s.kernel[0], s.stride[0], s.padding[0], s.height);
        for (int64_t ox = 0; ox < s.out_width; ++ox) {
          const Window wx = pooling_window(ox, s.kernel[1], s.stride[1], s.padding[1], s.width);
          const int64_t divisor = avg_pool_divisor(wy, wx, s.height, s.width, count_include_pad,
                                                   divisor_override.has_value(), divisor_override.value_or(0));
          const T share =
              cpu::convert<T>(g[(p * s.out_height + oy) * s.out_width + ox]) / static_cast<T>(divisor);
          for (int64_t row = clip_begin(wy); row < clip_end(wy, s.height); ++row) {
            for (int64_t column = clip_begin(wx); column < clip_end(wx, s.width); ++column) {
              plane[row * s.width + column] += share;
            }
          }
        }
      }
    }
    cpu::store_row(static_cast<char*>(grad_input.data_ptr()), sizeof(scalar_t), grad_input.scalar_type(),
                   sums.data(), static_cast<int64_t>(sums.size()));
  });
}

}  // namespace tg
