// The device side of the index checks (index_check.h): report_bad_index records the first
// out-of-bounds index of a device; the caller then skips the element.
#pragma once

#include <cstdint>

#include "cuda/index_check.h"

namespace tg::cuda {

// True when index lies in [0, bound); else records it (the first failure of the device wins).
__device__ inline bool index_in_bounds(IndexErrorRecord* record, IndexedOp op, int64_t index, int64_t bound,
                                       int64_t detail = 0) {
  if (index >= 0 && index < bound) return true;
  if (atomicCAS(&record->state, 0u, 1u) == 0u) {
    volatile IndexErrorRecord* r = record;
    r->op = static_cast<int32_t>(op);
    r->index = index;
    r->bound = bound;
    r->detail = detail;
    __threadfence_system();  // the fields reach the host before the state says they are there
    r->state = 2u;
  }
  return false;
}

}  // namespace tg::cuda
