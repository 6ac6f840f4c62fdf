// DimBlocks: a contiguous tensor seen as [outer, size, inner] around one dim, the layout the
// CPU and CUDA kernels that work along a dim (softmax, arg reductions, cumsum, index_select,
// ...) share.
// Element (o, k, i) is at offset (o * size + k) * inner + i.
#pragma once

#include <cstdint>

#include "core/array_ref.h"

namespace tg {

struct DimBlocks {
  int64_t outer = 1, size = 1, inner = 1;
};

// The blocks of `sizes` around `dim` (already wrapped); a 0-dim tensor is [1, 1, 1].
inline DimBlocks blocks_around(IntArrayRef sizes, int64_t dim) {
  DimBlocks b;
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
    if (d < dim) b.outer *= sizes[d];
    if (d == dim) b.size = sizes[d];
    if (d > dim) b.inner *= sizes[d];
  }
  return b;
}

}  // namespace tg
