// Launchers of the CUDA kernels that work along one dim of a contiguous tensor seen as
// [outer, size, inner] blocks (dim_blocks.h): softmax and log_softmax with their backward,
// cumsum and topk. Every pointer is to contiguous memory of `dtype` (indices: int64); each
// launch runs on the current stream. A dtype outside the CPU kernel's set raises its
// NotImplementedError, naming `op`.
#pragma once

#include <cstdint>

#include "core/scalar_type.h"
#include "dim_blocks.h"

namespace tg::cuda {

// out = softmax (or log_softmax) of in along the dim.
void launch_softmax(ScalarType dtype, bool log, const void* in, void* out, DimBlocks blocks, const char* op);
// grad_input from grad_output and the forward's output:
//   softmax:  y (g - sum(g y));   log_softmax:  g - exp(y) sum(g)
void launch_softmax_backward(ScalarType dtype, bool log, const void* grad_output, const void* output,
                             void* grad_input, DimBlocks blocks, const char* op);
// out[o, k, i] = in[o, 0, i] + ... + in[o, k, i], accumulated in the opmath type (wrapping).
void launch_cumsum(ScalarType dtype, const void* in, void* out, DimBlocks blocks);
// values/indices [outer, k, inner]: the k largest (smallest) of each in[o, :, i], sorted, NaN
// largest, ties by index (the CPU's order).
void launch_topk(ScalarType dtype, const void* in, void* values, int64_t* indices, DimBlocks blocks, int64_t k,
                 bool largest);

}  // namespace tg::cuda
