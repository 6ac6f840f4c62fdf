// The geometry of pooling (max_pool2d/3d, avg_pool2d/3d, their adaptive forms) and of sliding
// windows (im2col), with PyTorch's checks. Along one dim of input size n, a window of kernel
// size k, dilation d and stride s over an input padded by p on both sides has
//   out = floor((n + 2p - d(k - 1) - 1 + (ceil_mode ? s - 1 : 0)) / s) + 1
// positions, less one when ceil_mode would start the last window in the right padding:
// (out - 1) s >= n + p. An adaptive pooling to `out` cells has cell o cover
// [floor(o n / out), ceil((o + 1) n / out)) (pooling_window.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/array_ref.h"
#include "core/dim_vector.h"
#include "core/error.h"
#include "host_device_math.h"

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

// A pooling argument of one or N ints, one per spatial dim; `fallback` when empty (stride).
template <size_t N>
std::array<int64_t, N> sized_argument(const char* op, const char* name, IntArrayRef value,
                                      std::array<int64_t, N> fallback = {}) {
  static_assert(N == 2 || N == 3);
  if (value.empty() && fallback[0] > 0) return fallback;
  TG_CHECK_VALUE(value.size() == 1 || value.size() == N, "[", op, "] ", name, " must either be a single int, or a ",
                 "tuple of ", N == 2 ? "two" : "three", " ints, got ", value);
  std::array<int64_t, N> result;
  for (size_t i = 0; i < N; ++i) result[i] = value[value.size() == N ? i : 0];
  return result;
}

// (height, width) of a 2-d argument.
inline std::array<int64_t, 2> pair_argument(const char* op, const char* name, IntArrayRef value,
                                            std::array<int64_t, 2> fallback = {0, 0}) {
  return sized_argument<2>(op, name, value, fallback);
}

// One pooling call over the last three dims (depth, height, width) of [planes, D, H, W]:
// 2-d pooling is 3-d pooling over a depth of 1 (kernel 1, stride 1, no padding), so one kernel
// core serves both. Adaptive pooling (`adaptive`) has no kernel, stride, padding or dilation:
// its windows follow from `input` and `output` alone. Indices are flat within a plane:
// (z * H + y) * W + x.
struct PoolShape {
  std::array<int64_t, 3> kernel{1, 1, 1}, stride{1, 1, 1}, padding{0, 0, 0}, dilation{1, 1, 1};
  std::array<int64_t, 3> input{1, 1, 1}, output{1, 1, 1};
  int64_t planes = 1;
  bool adaptive = false;

  TG_HOST_DEVICE int64_t input_plane() const { return input[0] * input[1] * input[2]; }
  TG_HOST_DEVICE int64_t output_plane() const { return output[0] * output[1] * output[2]; }
};

namespace detail {

// The input's rank is spatial_dims + 1 or + 2 (batch mode) and its non-batch dims are non-empty;
// fills the spatial sizes and the number of planes.
inline void read_pool_input(const char* op, int64_t spatial_dims, IntArrayRef input_sizes, PoolShape& s) {
  const int64_t ndim = static_cast<int64_t>(input_sizes.size());
  bool non_empty = ndim == spatial_dims + 1 || ndim == spatial_dims + 2;
  for (int64_t d = ndim - spatial_dims - 1; non_empty && d < ndim; ++d) non_empty = input_sizes[d] > 0;
  TG_CHECK_VALUE(non_empty, "[", op, "] non-empty ", spatial_dims + 1, "D or ", spatial_dims + 2,
                 "D (batch mode) tensor expected for input, got shape ", input_sizes);
  for (int64_t d = 0; d < spatial_dims; ++d) s.input[3 - spatial_dims + d] = input_sizes[ndim - spatial_dims + d];
  for (int64_t d = 0; d < ndim - spatial_dims; ++d) s.planes *= input_sizes[d];
}

// "HxW" or "DxHxW", as PyTorch prints an output size.
inline std::string joined_sizes(const int64_t* sizes, size_t n) {
  std::string text;
  for (size_t i = 0; i < n; ++i) text += (i == 0 ? "" : "x") + std::to_string(sizes[i]);
  return text;
}

template <size_t N>
void place(std::array<int64_t, 3>& to, const std::array<int64_t, N>& from) {
  for (size_t i = 0; i < N; ++i) to[3 - N + i] = from[i];
}

}  // namespace detail

// The parameters of an N-d (N = 2 or 3) max or average pooling, checked, and the output size
// they give. Average pooling has no dilation (pass {1}) and checks its padding against the
// kernel size, max pooling against the dilated kernel (padding_from_dilation).
template <size_t N>
PoolShape pool_shape(const char* op, IntArrayRef input_sizes, IntArrayRef kernel_size, IntArrayRef stride,
                     IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, bool padding_from_dilation) {
  PoolShape s;
  detail::read_pool_input(op, N, input_sizes, s);
  const auto kernel = sized_argument<N>(op, "kernel_size", kernel_size);
  const auto strides = sized_argument<N>(op, "stride", stride, kernel);
  const auto pads = sized_argument<N>(op, "padding", padding);
  const auto dilations = sized_argument<N>(op, "dilation", dilation);
  for (size_t i = 0; i < N; ++i) {
    TG_CHECK_VALUE(kernel[i] > 0, "[", op, "] kernel size should be greater than zero, got ", kernel_size);
    TG_CHECK_VALUE(strides[i] > 0, "[", op, "] stride should be greater than zero, got ", stride);
    TG_CHECK_VALUE(dilations[i] > 0, "[", op, "] dilation should be greater than zero, got ", dilation);
    // In 128 bits: a kernel and dilation near 2^62 must not wrap (found by the sanitized sweep).
    const __int128 effective = padding_from_dilation ? __int128(kernel[i] - 1) * dilations[i] + 1 : kernel[i];
    TG_CHECK_VALUE(pads[i] >= 0 && pads[i] <= effective / 2, "[", op, "] pad should be at most half of ",
                   "effective kernel size, but got pad=", pads[i], ", kernel_size=", kernel[i], " and dilation=",
                   dilations[i]);
  }
  detail::place(s.kernel, kernel);
  detail::place(s.stride, strides);
  detail::place(s.padding, pads);
  detail::place(s.dilation, dilations);
  bool fits = true;
  for (size_t d = 3 - N; d < 3; ++d) {
    s.output[d] = pooling_output_size(s.input[d], s.kernel[d], s.padding[d], s.stride[d], s.dilation[d], ceil_mode);
    fits = fits && s.output[d] > 0;
  }
  TG_CHECK_VALUE(fits, "[", op, "] given input size ", input_sizes, ", the calculated output size is (",
                 detail::joined_sizes(s.output.data() + 3 - N, N), "), which is too small");
  return s;
}

// An N-d adaptive pooling of the input to output_size (N positive ints), checked.
template <size_t N>
PoolShape adaptive_pool_shape(const char* op, IntArrayRef input_sizes, IntArrayRef output_size) {
  PoolShape s;
  s.adaptive = true;
  detail::read_pool_input(op, N, input_sizes, s);
  TG_CHECK_VALUE(output_size.size() == N, "[", op, "] output_size must be ", N, " ints, got ", output_size);
  for (size_t i = 0; i < N; ++i) {
    TG_CHECK_VALUE(output_size[i] > 0, "[", op, "] output_size must be positive, got ", output_size);
    s.output[3 - N + i] = output_size[i];
  }
  return s;
}

// max_pool2d/3d's shape: padding checked against the dilated kernel.
template <size_t N>
PoolShape max_pool_shape(const char* op, IntArrayRef input_sizes, IntArrayRef kernel_size, IntArrayRef stride,
                         IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return pool_shape<N>(op, input_sizes, kernel_size, stride, padding, dilation, ceil_mode, true);
}

// avg_pool2d/3d's shape: no dilation.
template <size_t N>
PoolShape avg_pool_shape(const char* op, IntArrayRef input_sizes, IntArrayRef kernel_size, IntArrayRef stride,
                         IntArrayRef padding, bool ceil_mode) {
  const int64_t no_dilation = 1;
  return pool_shape<N>(op, input_sizes, kernel_size, stride, padding, IntArrayRef(&no_dilation, 1), ceil_mode, false);
}

// An adaptive pooling's backward: the output size is grad_output's last N sizes (the meta
// function checks grad_output's shape).
template <size_t N>
PoolShape adaptive_backward_shape(const char* op, IntArrayRef input_sizes, IntArrayRef grad_output_sizes) {
  TG_CHECK_VALUE(grad_output_sizes.size() >= N, "[", op, "] expected grad_output with at least ", N,
                 " dims, got shape ", grad_output_sizes);
  return adaptive_pool_shape<N>(op, input_sizes, grad_output_sizes.slice(grad_output_sizes.size() - N));
}

// The sizes of a pooling's result: the input's leading dims, then the N output sizes.
inline DimVector pooled_sizes(IntArrayRef input_sizes, const PoolShape& s, size_t spatial_dims) {
  DimVector sizes(input_sizes);
  for (size_t d = 0; d < spatial_dims; ++d) sizes[sizes.size() - spatial_dims + d] = s.output[3 - spatial_dims + d];
  return sizes;
}

}  // namespace tg
