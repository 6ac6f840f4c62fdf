// Launchers of the CUDA advanced-indexing kernels (advanced_index_ops.cu), on the plan of
// kernels/advanced_index.h flattened into fixed arrays: a thread per position of R computes
// self's offset from the index values, checked on the device (index_check.h: a value out of
// [-size, size) is skipped and reported to the host at its next check). Each launch runs on
// the current stream.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/scalar_type.h"

namespace tg::cuda {

inline constexpr int kMaxAdvancedDims = 16;     // dims of R
inline constexpr int kMaxAdvancedIndices = 8;   // index tensors (after masks became columns)

struct AdvancedIndexArgs {
  int ndim = 0;
  int count = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxAdvancedDims] = {};         // R
  int64_t self_strides[kMaxAdvancedDims] = {};  // 0 on B's dims
  int64_t other_strides[kMaxAdvancedDims] = {};  // the result's, or values' broadcast to R
  const int64_t* index[kMaxAdvancedIndices] = {};
  int64_t index_strides[kMaxAdvancedIndices][kMaxAdvancedDims] = {};
  int64_t indexed_sizes[kMaxAdvancedIndices] = {};
  int64_t indexed_strides[kMaxAdvancedIndices] = {};
  int64_t indexed_dims[kMaxAdvancedIndices] = {};
};

// out[p] = self[offset(p)].
void launch_advanced_index(size_t element_size, const void* self, void* out, const AdvancedIndexArgs& args);
// self[offset(p)] = values[p], or += with accumulate (atomic: repeated positions add up).
void launch_advanced_index_put(ScalarType dtype, void* self, const void* values, const AdvancedIndexArgs& args,
                               bool accumulate);

}  // namespace tg::cuda
