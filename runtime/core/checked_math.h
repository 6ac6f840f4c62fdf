// Overflow-checked arithmetic for sizes, strides and byte counts (c10's safe_multiplies).
// Invariant: every number of elements, stride or storage byte count tensorgen computes fits in
// int64 (bytes: in int64 too, so that byte offsets stay signed); a shape whose product does not
// is refused with a tg::Error naming the shape. See Note [Overflow of sizes].
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/array_ref.h"

namespace tg {

// Note [Overflow of sizes]
// A tensor's numel, its contiguous strides and its storage bytes are products of user-given
// sizes. Computed in plain int64 they wrap (2^62 + 1) * 4 to 4: the tensor then claims more
// elements than its 16 bytes hold and a later write lands outside the allocation. Every such
// product goes through these helpers. As in PyTorch, a shape containing a zero is legal however
// large its other sizes are (numel is 0), but its contiguous strides must still fit.

// a * b into *out; returns true when the product does not fit in int64.
inline bool mul_overflows(int64_t a, int64_t b, int64_t* out) { return __builtin_mul_overflow(a, b, out); }
inline bool add_overflows(int64_t a, int64_t b, int64_t* out) { return __builtin_add_overflow(a, b, out); }

// The product of `sizes` (all >= 0) into *out; true when it overflows int64. A zero anywhere
// makes the product 0 and never overflows.
bool multiply_overflows(IntArrayRef sizes, int64_t* out);

// numel of a shape; raises tg::Error "[op] ... overflow" when it does not fit in int64.
int64_t checked_numel(const char* op, IntArrayRef sizes);

// numel * itemsize as bytes; raises when it does not fit in int64.
size_t checked_nbytes(const char* op, IntArrayRef sizes, size_t itemsize);

// The contiguous strides of `sizes` into strides_out (size-0 dims count as 1, as in PyTorch);
// raises when a stride does not fit in int64.
void checked_contiguous_strides(const char* op, IntArrayRef sizes, int64_t* strides_out);

// The bytes a strided layout reaches from the start of its storage:
// (offset + sum((size_k - 1) * stride_k) + 1) * itemsize, 0 when some size is 0; raises when a
// term does not fit in int64.
size_t checked_storage_bytes(const char* op, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                             size_t itemsize);

}  // namespace tg
