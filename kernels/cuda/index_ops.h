// Launchers of the CUDA indexing kernels (index_ops.cu): index_select, index_add, gather,
// scatter_add, tril and triu. Tensors are contiguous device memory unless strides are given
// (in elements); indices are int64 device memory, checked against their bounds by the kernels
// (index_check.h: an index out of bounds is skipped and reported to the host later). Kernels that only move elements take the element size and serve every
// dtype; the adding ones take the dtype and raise the CPU kernel's NotImplementedError outside
// its set. Each launch runs on the current stream.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/scalar_type.h"
#include "cuda/elementwise_args.h"
#include "dim_blocks.h"

namespace tg::cuda {

inline constexpr int kMaxIndexDims = 16;

// gather and scatter_add walk index's shape; at position p (row-major, linear index p of the
// contiguous index) the indexed tensor's element is p with p[dim] replaced by index[p].
struct GatherArgs {
  int ndim = 0;
  int dim = 0;
  int64_t numel = 0;
  int64_t bound = 0;                            // index values lie in [0, bound)
  int64_t sizes[kMaxIndexDims] = {};            // index's shape, outermost first
  int64_t indexed_strides[kMaxIndexDims] = {};  // gather: self; scatter_add: out (0 on a 0-dim tensor)
  int64_t other_strides[kMaxIndexDims] = {};    // scatter_add: src; gather: out's (contiguous)
};

// out[o, k, i] = in[o, index[k], i]; in has in_blocks, out [outer, count, inner].
void launch_index_select(size_t element_size, const void* in, void* out, const int64_t* index, DimBlocks in_blocks,
                         int64_t count);
// out[o, index[k], i] += alpha * source[o, k, i]; out has out_blocks, source [outer, count, inner].
void launch_index_add(ScalarType dtype, void* out, const void* source, const int64_t* index, DimBlocks out_blocks,
                      int64_t count, ScalarValue alpha);
// out[p] = self[p with p[dim] = index[p]].
void launch_gather(size_t element_size, const void* self, void* out, const int64_t* index, const GatherArgs& args);
// out[p with p[dim] = index[p]] += src[p].
void launch_scatter_add(ScalarType dtype, void* out, const void* src, const int64_t* index, const GatherArgs& args);
// out[b, i, j] = in[b, i, j] where j - i <= diagonal (lower) or >= diagonal (upper), else 0.
// in may be out itself.
void launch_triangle(size_t element_size, const void* in, void* out, int64_t batches, int64_t rows, int64_t cols,
                     int64_t diagonal, bool lower);

}  // namespace tg::cuda
