// Launchers of the CUDA kernels of layer norm, the NLL loss and embedding's backward
// (nn_ops.cu). Pointers are to contiguous device memory: `T` tensors of `dtype`, `acc`
// tensors of its accumulation dtype (acc_dtype: float32 for the 16-bit floats and float32,
// float64 for float64), indices int64. Each launch runs on the current stream; a dtype
// outside the CPU kernel's set (the floating ones) raises its NotImplementedError.
#pragma once

#include <cstdint>

#include "core/scalar_type.h"

namespace tg::cuda {

ScalarType acc_dtype(ScalarType dtype);

// Per row of n elements: mean, rstd = 1 / sqrt(var + eps), y = (x - mean) rstd w + b.
// weight and bias (acc) may be null.
void launch_layer_norm(ScalarType dtype, const void* x, const void* weight, const void* bias, void* y, void* mean,
                       void* rstd, int64_t rows, int64_t n, double eps);
// grad_input (may be null) = rstd (g w - mean(g w) - x^ mean(g w x^)) per row; grad_weight
// and grad_bias (may be null) the column sums of g x^ and g. mean, rstd, weight: acc (weight
// may be null).
void launch_layer_norm_backward(ScalarType dtype, const void* grad_out, const void* x, const void* mean,
                                const void* rstd, const void* weight, void* grad_input, void* grad_weight,
                                void* grad_bias, int64_t rows, int64_t n);

// nll_loss_forward over n targets of `classes` classes; weight (float64, may be null).
// output: n losses (reduction None) or one; total_weight: one. A target outside [0, classes)
// that is not ignore_index counts as ignored and is recorded for the host (index_check.h); so
// in the backward.
void launch_nll_loss(ScalarType dtype, const void* self, const int64_t* target, const double* weight, void* output,
                     void* total_weight, int64_t n, int64_t classes, int64_t reduction, int64_t ignore_index);
// grad_input (zeroed here) [n, classes]; grad (float64): n values when per_element, else one;
// total_weight (float64): one, read for reduction Mean.
void launch_nll_loss_backward(ScalarType dtype, const double* grad, const int64_t* target, const double* weight,
                              const double* total_weight, void* grad_input, int64_t n, int64_t classes,
                              int64_t reduction, int64_t ignore_index, bool per_element);

// frequency[k] (num_weights elements, zeroed by the caller) += how many of the count indices
// are k. An index outside [0, num_weights) is recorded for the host (index_check.h).
void launch_embedding_count(const int64_t* indices, int64_t count, int64_t num_weights, int64_t* frequency);
// sums (acc, [num_weights, width], zeroed by the caller) += the rows of grad whose index is k,
// never padding_idx, divided by frequency[k] when scale_grad_by_freq (frequency may be null
// otherwise). Rows are added with atomicAdd, in no fixed order. An index outside
// [0, num_weights) is skipped and recorded for the host.
void launch_embedding_backward(ScalarType dtype, const void* grad, const int64_t* indices, const int64_t* frequency,
                               void* sums, int64_t count, int64_t width, int64_t num_weights, int64_t padding_idx,
                               bool scale_grad_by_freq);

}  // namespace tg::cuda
