// MemorySnapshot: the segments a caching allocator holds and the blocks that tile them, in
// address order. For each segment: sum(block.size) == size, blocks are contiguous from
// `address`, and every block belongs to the segment's stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "alloc/raw_memory.h"

namespace tg::alloc {

enum class BlockState {
  allocated,     // handed out and not yet freed
  pending_free,  // freed, but a stream named by record_stream may still be using it
  free,          // cached, reusable by the segment's stream
};

const char* to_string(BlockState state);

struct BlockSnapshot {
  uintptr_t address = 0;
  size_t size = 0;
  size_t requested_size = 0;  // 0 unless allocated
  BlockState state = BlockState::free;
};

struct SegmentSnapshot {
  int device = 0;
  uintptr_t address = 0;
  size_t size = 0;
  StreamId stream = 0;
  bool small_pool = false;
  uint64_t private_pool = 0;   // the MempoolId of its private pool, 0 for the default pools
  size_t allocated_bytes = 0;  // sum of its allocated blocks
  size_t active_bytes = 0;     // allocated + pending_free blocks
  std::vector<BlockSnapshot> blocks;
};

struct MemorySnapshot {
  std::vector<SegmentSnapshot> segments;  // by device, then address

  // {"segments": [{"device", "address", "size", "stream", "pool": "small"|"large",
  //   "allocated_bytes", "active_bytes", "blocks": [{"address", "size", "requested_size",
  //   "state": "allocated"|"pending_free"|"free"}]}]}. Addresses and sizes are JSON integers.
  std::string to_json() const;
};

}  // namespace tg::alloc
