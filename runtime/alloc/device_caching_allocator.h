// DeviceCachingAllocator: the caching allocator of one device, over a RawMemoryBackend.
// It keeps the segments it got from raw_malloc and carves them into blocks; freed blocks
// are cached for reuse on their stream instead of going back to the device.
// Invariants (mutex held): stats.reserved_bytes == sum of segment sizes; a block is in its
// pool iff block.is_free(); a pending block has pending_events == its queued events.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "alloc/allocator_options.h"
#include "alloc/allocator_stats.h"
#include "alloc/block.h"
#include "alloc/memory_snapshot.h"
#include "alloc/pool_state.h"
#include "alloc/private_pool.h"
#include "alloc/raw_memory.h"

namespace tg::alloc {

// Note [Life of a block]
// allocate(n, s): round n to r = round_size(n) and look in the pool of r's size class for
// the smallest free block of stream s with size >= r. On a miss, get a new segment of
// segment_size(r) from the backend (after garbage collection, see Note [Garbage-collection
// threshold]); if the backend has no memory, free every cached segment nobody uses
// (waiting for outstanding events first) and try once more, else throw OutOfMemoryError.
// A block bigger than needed is split (see should_split) and the remainder stays cached.
//
// free(p): with no other stream recorded, the block becomes free at once and merges with
// free neighbours. If record_stream named other streams, an event is recorded on each of
// them and the block is pending until all are done; events are polled at the start of the
// next allocate (and waited for by empty_cache). Blocks are reused only by the stream they
// were allocated on: that stream's order already serializes the old use before the new one.
//
// Segments go back to the backend only whole (no allocated, pending or split part): on
// empty_cache, on an out-of-memory retry, and by garbage collection.

// Note [Garbage-collection threshold]
// With threshold t, before taking a new segment of size g the allocator frees whole free
// segments, least recently freed first, until reserved + g <= t * capacity or none is left.
// It only runs when the cache missed, so a steady workload that reuses its blocks never
// pays for it. (PyTorch frees large-pool segments older than the average age until reserved
// <= t * capacity; freeing the least recently used ones first has the same intent.)

// Note [Private pools]
// A private pool (MempoolId) owns its segments: begin_allocate_to_pool(pool, stream) routes
// every allocation on `stream` to the pool until end_allocate_to_pool(stream), which is how a
// recording's tensors get addresses no ordinary allocation can take. Freed blocks go back to
// their pool, so a later capture into the same pool (a graph tree's next node) reuses them.
// use_count counts the pool's users: create_pool gives 1, retain_pool adds one (a second
// recording sharing the pool), release_pool removes one. At 0 the pool's whole free segments
// go back to the backend at once, and each remaining one as soon as its last block is freed;
// the pool is gone when its last segment is. The out-of-memory path and empty_cache never
// touch a pool that still has users: its recordings depend on their addresses.
//
// Note [max_split_size]
// A block of at least max_split_size is never split, and a request below max_split_size
// never takes one; a request of at least max_split_size takes a cached block only if it
// wastes less than kLargeSegment (20 MiB) of it (as in PyTorch). This keeps huge cached
// blocks whole for huge requests instead of fragmenting them.
//
// Note [Memory fraction]
// With set_memory_fraction(f), a new segment is refused when it would take reserved bytes
// above f * capacity; the refusal takes the same path as a full device (free the cache, retry,
// then OutOfMemoryError), so one process can be kept to a share of a device.

class DeviceCachingAllocator {
 public:
  DeviceCachingAllocator(RawMemoryBackend& backend, int device, CachingAllocatorOptions options);
  // Frees every cached segment. Segments with live allocations stay with the backend.
  ~DeviceCachingAllocator();
  DeviceCachingAllocator(const DeviceCachingAllocator&) = delete;
  DeviceCachingAllocator& operator=(const DeviceCachingAllocator&) = delete;

  // A block of at least nbytes (> 0) for `stream`. Throws OutOfMemoryError.
  void* allocate(size_t nbytes, StreamId stream);
  // Precondition for both: ptr is an allocation of this allocator (else tg::Error).
  void free(void* ptr);
  void record_stream(void* ptr, StreamId stream);

  // Waits for outstanding events, then returns every whole free segment to the backend.
  void empty_cache();
  AllocatorStats stats() const;
  void reset_peak_stats();
  void append_snapshot(std::vector<SegmentSnapshot>& segments) const;

  // Private pools: see Note [Private pools]. Each throws tg::Error for an unknown pool.
  MempoolId create_pool();
  void retain_pool(MempoolId pool);
  void release_pool(MempoolId pool);
  void begin_allocate_to_pool(MempoolId pool, StreamId stream);
  void end_allocate_to_pool(StreamId stream);
  // The pool's segments and blocks now (outstanding events are waited for first).
  PoolState checkpoint_pool(MempoolId pool);
  // Puts the pool's block map back to `state`; segments taken since are left whole and free.
  // Throws tg::Error (changing nothing) when a segment of the state is no longer the pool's.
  PoolRestoreResult restore_pool(const PoolState& state);
  // Bytes of segments the pool holds (0 for a pool that is gone).
  size_t pool_reserved_bytes(MempoolId pool) const;
  // See Note [Memory fraction]. Throws ValueError unless 0 < fraction <= 1.
  void set_memory_fraction(double fraction);

 private:
  // Every method below: Precondition: mutex_ held.
  BlockPool& pool_of(const Block& block) {
    if (block.pool != nullptr) return block.small_pool ? block.pool->small_blocks : block.pool->large_blocks;
    return block.small_pool ? small_pool_ : large_pool_;
  }
  PrivatePool& find_pool(MempoolId pool, const char* op) const;
  void release_free_segments(PrivatePool& pool);
  void erase_pool_if_unused(PrivatePool* pool);
  Block& find_allocated(void* ptr, const char* op) const;
  Block* allocate_segment(size_t size, StreamId stream, bool small_pool, PrivatePool* pool);
  void release_segment(Block* block);
  void split(Block* block, size_t size);
  void free_block(Block* block);
  void absorb_next(Block* block);
  void record_events(Block* block);
  void process_events();
  void synchronize_and_release_events();
  void release_cached_segments();
  void collect_garbage(size_t incoming);
  [[noreturn]] void throw_out_of_memory(size_t nbytes, size_t segment) const;

  RawMemoryBackend& backend_;
  const int device_;
  const CachingAllocatorOptions options_;
  const size_t capacity_;

  // Guards every member below. Backend calls for this device are made with it held.
  mutable std::mutex mutex_;
  // Owns every block (allocated, pending or free), by address; snapshots walk it in order.
  std::map<char*, std::unique_ptr<Block>> blocks_;
  // The free blocks, kept apart so that a small request never splits a large segment.
  BlockPool small_pool_{true};
  BlockPool large_pool_{false};
  // Events recorded at free, per stream they were recorded on, oldest first.
  std::map<StreamId, std::deque<std::pair<Event, Block*>>> pending_events_;
  AllocatorStats stats_;
  uint64_t clock_ = 0;  // counts blocks becoming free; orders segments for GC
  std::map<MempoolId, std::unique_ptr<PrivatePool>> private_pools_;
  std::map<StreamId, PrivatePool*> routes_;  // streams capturing into a private pool
  uint64_t next_pool_id_ = 1;
  double memory_fraction_ = 1.0;
};

}  // namespace tg::alloc
