// Index bounds checked on the device (Note [Index checks on the device] in docs/cuda.md): a
// kernel that meets an index out of bounds skips that element and records the first such
// index of its device in an IndexErrorRecord; the host reads the record without waiting for
// the device, at its next check point, and raises the CPU kernel's IndexError then.
// Invariants: one record per device, in pinned host memory that the device writes directly
// (unified addressing), made on first use and never freed; `state` goes 0 -> 1 (a thread
// claimed it) -> 2 (fields written) and back to 0 only when the host has reported it.
// Threading: any host thread may check; the first one to see a complete record reports it.
#pragma once

#include <cstdint>

namespace tg::cuda {

enum class IndexedOp : int32_t {
  kIndexSelect = 1,
  kIndexAdd,
  kGather,
  kScatterAdd,
  kMaxPoolBackward,
  kIndex,
  kIndexPut,
  kEmbeddingBackward,
  kNllLoss,
  kNllLossBackward,
  kAdaptiveMaxPoolBackward,
};

struct IndexErrorRecord {
  unsigned int state;
  int32_t op;      // an IndexedOp
  int64_t index;   // the offending value
  int64_t bound;   // values must lie in [0, bound)
  int64_t detail;  // gather/scatter_add/index/index_put_: the dim; max pooling backward: its spatial dims;
                   // the NLL loss: ignore_index
};

// The record of `device` (its device pointer is its host pointer), made on first use.
IndexErrorRecord* index_error_record(int device);

// Raises the IndexError of a failure a kernel recorded on `device` since the last check, with
// the CPU kernel's message, and clears the record. Never waits for the device: a kernel still
// running is reported by a later check.
void check_index_errors(int device);

// The same for the current device.
void check_index_errors();

}  // namespace tg::cuda
