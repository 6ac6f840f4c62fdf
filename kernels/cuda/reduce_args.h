// ReduceArgs: a reduction as plain data, which host code builds from tensors (reductions.cpp)
// and the CUDA reduction kernels read (reduce.cuh). The input is seen as a matrix
// [num_outputs, reduce_size]: element (o, r) is at
//   input + (offset of o over the kept dims) + (offset of r over the reduced dims)
// (in elements), where o and r are row-major indices over the kept and the reduced dims of the
// input, each stored innermost first. Output o is out[o] (and indices[o]), both contiguous.
#pragma once

#include <cstdint>

#include "core/scalar_type.h"

namespace tg::cuda {

inline constexpr int kMaxReduceDims = 16;

enum class ReduceOp : uint8_t { Sum, Mean, Max, Min, ArgMax };

struct ReduceArgs {
  const void* input = nullptr;
  int64_t num_outputs = 0;
  int64_t reduce_size = 0;  // elements reduced into each output; mean divides by it
  int out_ndim = 0;
  int red_ndim = 0;
  int64_t out_sizes[kMaxReduceDims] = {};
  int64_t out_strides[kMaxReduceDims] = {};
  int64_t red_sizes[kMaxReduceDims] = {};
  int64_t red_strides[kMaxReduceDims] = {};
  void* out = nullptr;         // of the input's dtype; may be null for ArgMax (argmax)
  int64_t* indices = nullptr;  // ArgMax only: the first position of the maximum along r
};

// Reduces `args` with `op` over elements of `dtype` (the input's, which is also out's), on the
// current stream. Sum and Mean accumulate in float for 16- and 32-bit floats, double for
// float64, int64 for integral and bool; Max and Min propagate NaN; ArgMax takes the first
// maximum, NaN counting as the largest value (kernels/cpu/arg_reduction_kernels.cpp).
// The dtype sets are the CPU kernels': a dtype outside raises NotImplementedError naming `name`.
void launch_reduce(ReduceOp op, ScalarType dtype, const ReduceArgs& args, const char* name);

// var and std: the input is float64; out[o] (of `out_dtype`, floating) is
//   M2 / max(0, reduce_size - correction)  (its square root with take_sqrt)
// with M2 the sum of squared deviations from the mean, combined with Welford's (Chan's) rule.
void launch_variance(ScalarType out_dtype, const ReduceArgs& args, double correction, bool take_sqrt,
                     const char* name);

}  // namespace tg::cuda
