// PoolState: a checkpoint of one private pool's block map (PyTorch's AllocatorState for
// setCheckpointPoolState): every segment of the pool, and the blocks that tile it with their
// addresses, sizes and whether they were allocated. For each segment, the blocks are in
// address order, contiguous from `address`, and their sizes sum to `size`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "alloc/private_pool.h"
#include "alloc/raw_memory.h"

namespace tg::alloc {

struct CheckpointBlock {
  uintptr_t address = 0;
  size_t size = 0;
  size_t requested_size = 0;  // 0 unless allocated
  bool allocated = false;

  bool operator==(const CheckpointBlock&) const = default;
};

struct CheckpointSegment {
  uintptr_t address = 0;
  size_t size = 0;
  StreamId stream = 0;
  bool small_pool = false;
  std::vector<CheckpointBlock> blocks;

  bool operator==(const CheckpointSegment&) const = default;
};

struct PoolState {
  int device = 0;
  MempoolId pool;
  std::vector<CheckpointSegment> segments;  // by address

  bool operator==(const PoolState&) const = default;
};

// What restoring a checkpoint changed: the pointers that are allocated now and were not
// before (the caller owns them again), and those that were allocated and are free now (the
// caller must not free them: their memory belongs to the checkpoint's layout).
struct PoolRestoreResult {
  std::vector<void*> allocated;
  std::vector<void*> freed;
};

}  // namespace tg::alloc
