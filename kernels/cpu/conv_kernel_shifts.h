// The CPU forward of a stride-1 2-d convolution without im2col (Note [Kernel-shift
// convolution], cpu/conv_kernel_shifts.cpp). Included by composite/convolution.cpp only.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace tg::cpu {

// Writes conv2d(input, weight) with stride 1 and the given padding, dilation and groups into
// out ([N, O, H_out, W_out], contiguous, of input's dtype) and returns true; returns false,
// writing nothing, where the path does not apply (not a CPU float/double tensor, no BLAS, or
// a kernel with more than one element over fewer than kMinShiftChannels channels per group,
// where im2col's one deeper product is faster).
bool conv2d_by_kernel_shifts(const Tensor& input, const Tensor& weight, IntArrayRef padding, IntArrayRef dilation,
                             int64_t groups, const Tensor& out);

inline constexpr int64_t kMinShiftChannels = 16;

}  // namespace tg::cpu
