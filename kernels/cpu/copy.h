// The CPU copy that copy_, out= write-back and the kernels' overlap handling share.
#pragma once

#include "core/tensor.h"

namespace tg::cpu {

// dst = src broadcast to dst's shape, converting dtype; any strides on both sides. When src
// and dst share memory (and src is not dst itself) src is first copied to a temporary, so an
// overlapping copy reads every element before any is overwritten.
// Preconditions: both on the CPU; dst does not write one memory location twice (no stride-0
// dim of size > 1). Throws tg::ValueError when src does not broadcast to dst's shape.
void copy_into(const Tensor& dst, const Tensor& src);

// A new contiguous CPU tensor with src's shape, dtype and values.
Tensor contiguous_copy(const Tensor& src);

// src itself when it is contiguous and of `dtype`, else a contiguous copy converted to it:
// what a kernel that reads raw memory of one element type takes its inputs as.
Tensor contiguous_as(const Tensor& src, ScalarType dtype);

}  // namespace tg::cpu
