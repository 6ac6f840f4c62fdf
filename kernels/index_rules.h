// The argument rules of the indexing kernels (index_select, index_add, gather, scatter_add,
// masked_fill_, the indices of max_pool2d's backward), shared by the CPU and the CUDA kernels so that both raise the same errors.
// The index values are checked on a CPU copy of the index, which the functions return
// (contiguous int64); a CUDA kernel then uses a device copy of it.
#pragma once

#include <cstdint>

#include "core/dim_vector.h"
#include "core/tensor.h"

namespace tg {

// `index` as a contiguous int64 CPU tensor (copied from the GPU when it lives there).
Tensor index_on_cpu(const Tensor& index);

// index_select / index_add: an int64 or int32 index of at most one dim, each value in [0, size).
Tensor check_index(const char* op, const Tensor& index, int64_t size);
// The part of check_index that does not read the values: dtype and dims (the CUDA kernels
// check the values on the device: Note [Index checks on the device] in docs/cuda.md).
void check_index_kind(const char* op, const Tensor& index);

// index_select: self's shape with dim (wrapped) resized to the number of indices (a 0-dim
// self takes exactly one index).
DimVector index_select_sizes(const Tensor& self, int64_t dim, const Tensor& index);

// index_select.out: out of self's dtype.
void check_index_select_out(const Tensor& self, const Tensor& out);

// gather / scatter_add: each value of index in [0, bound), bound the size along dim of the
// tensor indexed (1 for a 0-dim one).
Tensor check_gather_index(const char* op, const Tensor& index, int64_t dim, int64_t bound);

// The backward of a max pooling (`op`): each index within an input plane of plane_size elements.
Tensor check_max_pool_indices(const char* op, const Tensor& indices, int64_t plane_size);

// masked_fill_: a bool mask that broadcasts to self's shape.
void check_masked_fill(const Tensor& self, const Tensor& mask);

}  // namespace tg
