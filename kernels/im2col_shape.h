// The geometry of im2col and col2im (and so of convolution): a [C, H, W] image and its
// [C * kH * kW, L] columns, L = out_height * out_width sliding-window positions, with the
// window sizes of pooling_shape.h (no ceil_mode). Row (c * kH + i) * kW + j of the columns
// holds, at column y * out_width + x, image[c, y * sH - pH + i * dH, x * sW - pW + j * dW]
// (zero outside the image).
#pragma once

#include <array>
#include <cstdint>

#include "pooling_shape.h"

namespace tg {

struct Im2colShape {
  std::array<int64_t, 2> kernel, dilation, padding, stride;
  int64_t height = 0, width = 0, out_height = 0, out_width = 0;

  constexpr int64_t kernel_area() const { return kernel[0] * kernel[1]; }
  constexpr int64_t positions() const { return out_height * out_width; }
};

inline Im2colShape im2col_shape(const char* op, int64_t height, int64_t width, IntArrayRef kernel_size,
                                IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  Im2colShape s;
  s.kernel = pair_argument(op, "kernel_size", kernel_size);
  s.dilation = pair_argument(op, "dilation", dilation);
  s.padding = pair_argument(op, "padding", padding);
  s.stride = pair_argument(op, "stride", stride);
  for (int i = 0; i < 2; ++i) {
    TG_CHECK_VALUE(s.kernel[i] > 0, "[", op, "] kernel size should be greater than zero, got ", kernel_size);
    TG_CHECK_VALUE(s.dilation[i] > 0, "[", op, "] dilation should be greater than zero, got ", dilation);
    TG_CHECK_VALUE(s.padding[i] >= 0, "[", op, "] padding should be non-negative, got ", padding);
    TG_CHECK_VALUE(s.stride[i] > 0, "[", op, "] stride should be greater than zero, got ", stride);
  }
  s.height = height;
  s.width = width;
  s.out_height = pooling_output_size(height, s.kernel[0], s.padding[0], s.stride[0], s.dilation[0], false);
  s.out_width = pooling_output_size(width, s.kernel[1], s.padding[1], s.stride[1], s.dilation[1], false);
  TG_CHECK_VALUE(s.out_height > 0 && s.out_width > 0, "[", op, "] given an input of spatial size (", height, ", ",
                 width, "), kernel_size=", kernel_size, ", dilation=", dilation, ", padding=", padding, ", stride=",
                 stride, ", the calculated shape of the array of sliding blocks is (", s.out_height, ", ",
                 s.out_width, "), but its components must be at least one");
  return s;
}

}  // namespace tg
