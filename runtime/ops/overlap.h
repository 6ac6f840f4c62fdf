// Memory-overlap checks for written tensors (ATen's MemoryOverlap), run once per in-place or
// out= call by the generated backend wrappers, where outputs are prepared, never per kernel.
// Invariant: a kernel never writes a tensor in which two elements share one memory location,
// and never writes an output that shares only part of its memory with an input it reads.
#pragma once

#include <initializer_list>
#include <string_view>

#include "core/tensor.h"

namespace tg {

// Note [Memory overlap]
// Two questions, answered exactly where that is cheap and "too hard" otherwise, as ATen does:
//  - internal overlap: does the tensor map two indices to one address? Yes when some dim of
//    size > 1 has stride 0 (an expand); No when the tensor is non-overlapping and dense (some
//    permutation of its dims is contiguous); TooHard otherwise (an as_strided that may or may
//    not overlap), which is allowed.
//  - overlap between an output and an input: Full when both cover the same bytes with the
//    same strides (an ordinary in-place op: each element is read before it is written at the
//    same index), Partial when their byte ranges intersect otherwise (x[0:4] += x[1:5], or
//    m += m.t(): results would depend on the kernel's order of traversal), No when disjoint,
//    TooHard when either is not non-overlapping and dense (allowed).
// Writes with internal overlap or partial overlap are refused with LibTorch's messages.
enum class MemOverlap { No, Yes, TooHard };
enum class MemOverlapStatus { Full, Partial, No, TooHard };

// Whether some permutation of t's dims is contiguous (dims of size 1 ignored).
bool is_non_overlapping_and_dense(const TensorImpl& t);
MemOverlap has_internal_overlap(const TensorImpl& t);
MemOverlapStatus get_overlap_status(const TensorImpl& a, const TensorImpl& b);

// Raise tg::ValueError "[op] unsupported operation: ..." on internal / partial overlap.
void assert_no_internal_overlap(std::string_view op, const Tensor& t);
void assert_no_partial_overlap(std::string_view op, const Tensor& written, const Tensor& read);

// The check the generated backend wrappers make before a kernel writes: no internal overlap in
// any written tensor, no partial overlap between a written tensor and a read one. Null or
// undefined entries (absent optional tensors) are skipped.
void check_writes(std::string_view op, std::initializer_list<const Tensor*> written,
                  std::initializer_list<const Tensor*> read);
// The same for every element of a written Tensor(a!)[] argument (internal overlap only).
void check_writes(std::string_view op, TensorList written);

}  // namespace tg
