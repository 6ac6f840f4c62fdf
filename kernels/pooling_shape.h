// The geometry of 2-d pooling and sliding windows (max_pool2d, avg_pool2d, im2col), with
// PyTorch's checks. Along one dim of input size n, a window of kernel size k, dilation d and
// stride s over an input padded by p on both sides has
//   out = floor((n + 2p - d(k - 1) - 1 + (ceil_mode ? s - 1 : 0)) / s) + 1
// positions, less one when ceil_mode would start the last window in the right padding:
// (out - 1) s >= n + p.
#pragma once

#include <array>
#include <cstdint>

#include "core/array_ref.h"
#include "core/error.h"

namespace tg {

// Precondition: stride > 0. Computed in 128 bits: sizes, pads and dilations a user gives may
// be near 2^63, and the sum must not wrap (the sanitized leg's sweep found it did); a result
// outside int64 is a tg::Error.
inline int64_t pooling_output_size(int64_t input, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                                   bool ceil_mode) {
  using Wide = __int128;
  const Wide numerator = Wide(input) + 2 * Wide(pad) - Wide(dilation) * (Wide(kernel) - 1) - 1 +
                         (ceil_mode ? Wide(stride) - 1 : 0);
  // Floor division (numerator may be negative when the window does not fit).
  Wide out = (numerator >= 0 ? numerator / stride : -((-numerator + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= Wide(input) + pad) --out;
  TG_CHECK(out >= Wide(INT64_MIN) && out <= Wide(INT64_MAX), "[pooling] expected an output size that fits in int64 ",
           "for input size ", input, ", kernel ", kernel, ", padding ", pad, ", stride ", stride, ", dilation ",
           dilation, "; it does not");
  return static_cast<int64_t>(out);
}

// A pooling argument of one or two ints as (height, width); `fallback` when empty (stride).
inline std::array<int64_t, 2> pair_argument(const char* op, const char* name, IntArrayRef value,
                                            std::array<int64_t, 2> fallback = {0, 0}) {
  if (value.empty() && fallback[0] > 0) return fallback;
  TG_CHECK_VALUE(value.size() == 1 || value.size() == 2, "[", op, "] ", name, " must either be a single int, or a ",
                 "tuple of two ints, got ", value);
  return {value[0], value.size() == 2 ? value[1] : value[0]};
}

// The parameters of a 2-d pooling, checked, and the output size they give.
struct Pool2dShape {
  std::array<int64_t, 2> kernel, stride, padding, dilation;
  int64_t planes = 1, height = 0, width = 0, out_height = 0, out_width = 0;
};

inline Pool2dShape pool2d_shape(const char* op, IntArrayRef input_sizes, IntArrayRef kernel_size, IntArrayRef stride,
                                IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, bool padding_from_dilation) {
  const int64_t ndim = static_cast<int64_t>(input_sizes.size());
  bool non_empty = ndim == 3 || ndim == 4;
  for (int64_t d = ndim - 3; non_empty && d < ndim; ++d) non_empty = input_sizes[d] > 0;
  TG_CHECK_VALUE(non_empty, "[", op, "] non-empty 3D or 4D (batch mode) tensor expected for input, got shape ",
                 input_sizes);
  Pool2dShape s;
  s.kernel = pair_argument(op, "kernel_size", kernel_size);
  s.stride = pair_argument(op, "stride", stride, s.kernel);
  s.padding = pair_argument(op, "padding", padding);
  s.dilation = pair_argument(op, "dilation", dilation);
  for (int i = 0; i < 2; ++i) {
    TG_CHECK_VALUE(s.kernel[i] > 0, "[", op, "] kernel size should be greater than zero, got ", kernel_size);
    TG_CHECK_VALUE(s.stride[i] > 0, "[", op, "] stride should be greater than zero, got ", stride);
    TG_CHECK_VALUE(s.dilation[i] > 0, "[", op, "] dilation should be greater than zero, got ", dilation);
    // In 128 bits: a kernel and dilation near 2^62 must not wrap (found by the sanitized sweep).
    const __int128 effective = padding_from_dilation ? __int128(s.kernel[i] - 1) * s.dilation[i] + 1 : s.kernel[i];
    TG_CHECK_VALUE(s.padding[i] >= 0 && s.padding[i] <= effective / 2, "[", op, "] pad should be at most half of ",
                   "effective kernel size, but got pad=", s.padding[i], ", kernel_size=", s.kernel[i], " and dilation=",
                   s.dilation[i]);
  }
  for (int64_t d = 0; d < ndim - 2; ++d) s.planes *= input_sizes[d];
  s.height = input_sizes[ndim - 2];
  s.width = input_sizes[ndim - 1];
  s.out_height = pooling_output_size(s.height, s.kernel[0], s.padding[0], s.stride[0], s.dilation[0], ceil_mode);
  s.out_width = pooling_output_size(s.width, s.kernel[1], s.padding[1], s.stride[1], s.dilation[1], ceil_mode);
  TG_CHECK_VALUE(s.out_height > 0 && s.out_width > 0, "[", op, "] given input size ", input_sizes,
                 ", the calculated output size is (", s.out_height, "x", s.out_width, "), which is too small");
  return s;
}

}  // namespace tg
