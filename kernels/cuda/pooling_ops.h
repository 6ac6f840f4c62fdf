// Launchers of the CUDA kernels of 2-d pooling and of im2col/col2im (pooling_ops.cu), with
// the geometry of pooling_shape.h and im2col_shape.h. Tensors are contiguous device memory of
// `dtype` (indices int64; `sums` of the accumulation dtype, float32 or float64, zeroed by the
// caller). Each launch runs on the current stream; a dtype outside the floating ones raises
// the CPU kernel's NotImplementedError.
#pragma once

#include <cstdint>

#include "core/scalar_type.h"
#include "im2col_shape.h"
#include "pooling_shape.h"

namespace tg::cuda {

// The options of avg_pool2d that decide its divisor.
struct AvgPoolDivisor {
  bool count_include_pad;
  bool has_override;
  int64_t divisor_override;
};

void launch_max_pool2d(ScalarType dtype, const void* in, void* out, int64_t* indices, const Pool2dShape& s);
// sums[plane, indices[plane, o]] += grad[plane, o], with atomicAdd (in no fixed order).
void launch_max_pool2d_backward(ScalarType dtype, const void* grad, const int64_t* indices, void* sums,
                                const Pool2dShape& s);
void launch_avg_pool2d(ScalarType dtype, const void* in, void* out, const Pool2dShape& s, AvgPoolDivisor divisor);
// Each input element sums the shares of the windows that cover it, in the CPU's order.
void launch_avg_pool2d_backward(ScalarType dtype, const void* grad, void* grad_input, const Pool2dShape& s,
                                AvgPoolDivisor divisor);
// image [batch, channels, H, W] <-> columns [batch, channels * kH * kW, positions]; col2im sums
// the entries of each image element in the CPU's order.
void launch_im2col(ScalarType dtype, const void* image, void* columns, const Im2colShape& s, int64_t batch,
                   int64_t channels);
void launch_col2im(ScalarType dtype, const void* columns, void* image, const Im2colShape& s, int64_t batch,
                   int64_t channels);

}  // namespace tg::cuda
