// Which positions index_fill, index_copy and scatter write, computed on their tensors' device
// (kernels/composite/index_ops.cpp): no index value goes to the host, so a CUDA call makes no
// device-to-host copy and does not wait for the device. See Note [Write plans on the device].
#pragma once

#include <cstdint>

#include "tensorgen/ops.h"

namespace tg::native::index_write_plan {

// index (int64) with the negative values in [-size, 0) wrapped to [0, size); every other value
// is kept as given, so that the kernel reading it reports it as given.
Tensor wrap_negative(const Tensor& index, int64_t size);

// A bool vector of `size` elements on index's device: true at each value of index (int64, any
// shape). Reads index through index_add, which checks each value against [0, size) (on CUDA
// on the device: Note [Index checks on the device], docs/cuda.md).
Tensor marked_positions(const Tensor& index, int64_t size);

// A bool tensor of targets' shape: true where a later element (row-major) of targets (int64)
// has the same value, i.e. the writes that a later write to the same position overrides.
Tensor overridden_writes(const Tensor& targets);

// The position in a contiguous tensor of `self_sizes` that scatter writes for each element of
// index (the same number of dims): index's value along dim, the element's own coordinate along
// the others. Values out of bounds give meaningless targets; scatter_add reports them.
Tensor scatter_targets(const Tensor& index, int64_t dim, IntArrayRef self_sizes);

}  // namespace tg::native::index_write_plan
