// Block: one contiguous range of a segment, and BlockPool: the free blocks of one size class.
// A segment (one raw_malloc) is a chain of blocks linked by prev/next whose ranges tile it:
// b.next->address == b.address + b.size. Every block of a segment has the segment's stream.
// A block is exactly one of: allocated; pending (freed, events outstanding on streams that
// used it); free (in its pool). Invariant: two free blocks are never neighbours (merged).
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

#include "alloc/raw_memory.h"

namespace tg::alloc {

struct PrivatePool;

struct Block {
  Block(char* address, size_t size, StreamId stream, bool small_pool)
      : address(address), size(size), stream(stream), small_pool(small_pool) {}

  char* address;
  size_t size;
  StreamId stream;         // the stream it was allocated on; only that stream reuses it
  bool small_pool;         // which pool it returns to (fixed by its segment's size class)
  PrivatePool* pool = nullptr;       // the private pool of its segment, or nullptr (the default pools)
  bool allocated = false;
  size_t requested_size = 0;         // what the caller asked for, while allocated
  std::vector<StreamId> stream_uses; // other streams named by record_stream, while allocated
  int pending_events = 0;            // events recorded at free and not yet seen done
  uint64_t freed_at = 0;             // allocator clock when it last became free (GC age)
  Block* prev = nullptr;             // neighbours in the same segment
  Block* next = nullptr;

  bool is_free() const { return !allocated && pending_events == 0; }
  bool is_pending() const { return !allocated && pending_events > 0; }
  bool is_whole_segment() const { return prev == nullptr && next == nullptr; }
};

// Orders free blocks by (stream, size, address), so that lower_bound finds the smallest
// block of a stream that fits, and the lowest address among equals.
struct BlockOrder {
  bool operator()(const Block* a, const Block* b) const {
    return std::tie(a->stream, a->size, a->address) < std::tie(b->stream, b->size, b->address);
  }
};

struct BlockPool {
  explicit BlockPool(bool small) : small(small) {}

  // Removes and returns the best-fitting free block of `stream` with nbytes <= size <= max_size,
  // or nullptr. (max_size enforces max_split_size, see Note [max_split_size].)
  Block* take_best_fit(StreamId stream, size_t nbytes, size_t max_size = SIZE_MAX) {
    Block key(nullptr, nbytes, stream, small);
    auto it = blocks.lower_bound(&key);
    if (it == blocks.end() || (*it)->stream != stream || (*it)->size > max_size) return nullptr;
    Block* block = *it;
    blocks.erase(it);
    return block;
  }

  std::set<Block*, BlockOrder> blocks;
  const bool small;
};

}  // namespace tg::alloc
