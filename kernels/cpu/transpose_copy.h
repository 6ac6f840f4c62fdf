// The tiled copy for transposes (x.t().contiguous(), permute(...).contiguous()): when the
// destination's innermost dim walks the source with a large stride, a row-by-row copy
// touches a new cache line, and often a new page, for every element. Copying square tiles
// keeps both sides of a tile in cache (as ATen's copy_same_type_transpose_).
#pragma once

#include "core/tensor.h"

namespace tg::cpu {

// Copies src into dst tile by tile when the copy is a transpose: same dtype and shape, no
// shared memory, dst's innermost dim has stride 1 and src has stride 1 along another dim.
// Returns false, doing nothing, for any other copy (and for small ones).
bool copy_transposed(const Tensor& dst, const Tensor& src);

}  // namespace tg::cpu
