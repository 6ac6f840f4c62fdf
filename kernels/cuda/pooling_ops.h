// Launchers of the CUDA kernels of pooling (2-d and 3-d, sliding and adaptive) and of
// im2col/col2im (pooling_ops.cu), with the geometry of pooling_shape.h and im2col_shape.h.
// Tensors are contiguous device memory of `dtype` (indices int64; `sums` of the accumulation
// dtype, float32 or float64, zeroed by the caller). Each launch runs on the current stream; a
// dtype outside the floating ones raises the CPU kernel's NotImplementedError.
#pragma once

#include <cstdint>

#include "core/scalar_type.h"
#include "cuda/index_check.h"
#include "im2col_shape.h"
#include "pooling_window.h"

namespace tg::cuda {

// Pooling of every [D, H, W] plane (2-d with D = 1; sliding or adaptive windows: `s`).
// `op` names the operator in the error for a dtype outside the floating ones.
void launch_max_pool(const char* op, ScalarType dtype, const void* in, void* out, int64_t* indices,
                     const PoolShape& s);
// sums[plane, indices[plane, o]] += grad[plane, o], with atomicAdd (in no fixed order); an
// index outside the plane is reported as indexed_op's (spatial_dims: 2 or 3) IndexError.
void launch_max_pool_backward(const char* op, ScalarType dtype, const void* grad, const int64_t* indices, void* sums,
                              const PoolShape& s, IndexedOp indexed_op, int64_t spatial_dims);
void launch_avg_pool(const char* op, ScalarType dtype, const void* in, void* out, const PoolShape& s,
                     AvgPoolDivisor divisor);
// Each input element sums the shares of the windows that cover it, in the CPU's order.
void launch_avg_pool_backward(const char* op, ScalarType dtype, const void* grad, void* grad_input, const PoolShape& s,
                              AvgPoolDivisor divisor);
// image [batch, channels, H, W] <-> columns [batch, channels * kH * kW, positions]; col2im sums
// the entries of each image element in the CPU's order.
void launch_im2col(ScalarType dtype, const void* image, void* columns, const Im2colShape& s, int64_t batch,
                   int64_t channels);
void launch_col2im(ScalarType dtype, const void* columns, void* image, const Im2colShape& s, int64_t batch,
                   int64_t channels);

}  // namespace tg::cuda
