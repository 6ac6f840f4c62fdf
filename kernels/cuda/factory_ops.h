// Launchers of the CUDA factory kernels that need more than elementwise arguments: arange,
// the random fills and dropout's random mask. Each writes a contiguous tensor of `numel` elements of `dtype` at
// `data`, on the current stream.
#pragma once

#include <cstdint>

#include "core/scalar_type.h"
#include "cuda/cuda_generator.h"
#include "cuda/elementwise_args.h"

namespace tg::cuda {

// data[i] = start + i * step, computed in int64 (integral dtypes, from start.i and step.i) or
// double (floating dtypes, from start.f and step.f), then converted to dtype.
void launch_arange(ScalarType dtype, void* data, int64_t numel, ScalarValue start, ScalarValue step);

// Uniform in [from, to) and normal(mean, std) draws, in double, converted to dtype (floating).
// See Note [Random numbers on CUDA] in docs/cuda.md.
void launch_uniform(ScalarType dtype, void* data, int64_t numel, PhiloxState state, double from, double to);
void launch_normal(ScalarType dtype, void* data, int64_t numel, PhiloxState state, double mean, double std);

// data[i] (bool) = u_i >= p, u_i uniform in [0, 1) with 53 bits: true with probability 1 - p
// (dropout's mask; the same draw as uniform_).
void launch_bernoulli_mask(bool* data, int64_t numel, PhiloxState state, double p);

}  // namespace tg::cuda
