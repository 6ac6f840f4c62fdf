// DeviceCachingAllocator's private pools and their checkpoints. See Note [Private pools].
#include <algorithm>

#include "alloc/device_caching_allocator.h"
#include "core/error.h"

namespace tg::alloc {

MempoolId DeviceCachingAllocator::create_pool() {
  std::lock_guard<std::mutex> lock(mutex_);
  const MempoolId id{next_pool_id_++};
  private_pools_.emplace(id, std::make_unique<PrivatePool>(id));
  return id;
}

void DeviceCachingAllocator::retain_pool(MempoolId pool) {
  std::lock_guard<std::mutex> lock(mutex_);
  PrivatePool& p = find_pool(pool, "retain_pool");
  TG_CHECK(p.use_count > 0, "[CachingAllocator::retain_pool] pool ", pool.id,
           " was already released by its last user; create a new pool");
  ++p.use_count;
}

void DeviceCachingAllocator::release_pool(MempoolId pool) {
  std::lock_guard<std::mutex> lock(mutex_);
  PrivatePool& p = find_pool(pool, "release_pool");
  TG_CHECK(p.use_count > 0, "[CachingAllocator::release_pool] pool ", pool.id,
           " was released more times than it was created and retained");
  for (const auto& [stream, routed] : routes_) {
    TG_CHECK(routed != &p || p.use_count > 1, "[CachingAllocator::release_pool] pool ", pool.id,
             " is still routed to stream ", stream, "; call end_allocate_to_pool first");
  }
  if (--p.use_count == 0) {
    synchronize_and_release_events();
    release_free_segments(p);  // may erase the pool
  }
}

void DeviceCachingAllocator::begin_allocate_to_pool(MempoolId pool, StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  PrivatePool& p = find_pool(pool, "begin_allocate_to_pool");
  TG_CHECK(p.use_count > 0, "[CachingAllocator::begin_allocate_to_pool] pool ", pool.id, " was released");
  auto [it, inserted] = routes_.emplace(stream, &p);
  TG_CHECK(inserted, "[CachingAllocator::begin_allocate_to_pool] stream ", stream,
           " already allocates to pool ", it->second->id.id, "; end that capture first");
}

void DeviceCachingAllocator::end_allocate_to_pool(StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  TG_CHECK(routes_.erase(stream) == 1, "[CachingAllocator::end_allocate_to_pool] stream ", stream,
           " does not allocate to a private pool");
}

size_t DeviceCachingAllocator::pool_reserved_bytes(MempoolId pool) const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t bytes = 0;
  for (const auto& [address, block] : blocks_) {
    if (block->pool != nullptr && block->pool->id == pool) bytes += block->size;
  }
  return bytes;
}

void DeviceCachingAllocator::set_memory_fraction(double fraction) {
  TG_CHECK_VALUE(fraction > 0.0 && fraction <= 1.0,
                 "[CachingAllocator::set_memory_fraction] fraction must be in (0, 1], got ", fraction);
  std::lock_guard<std::mutex> lock(mutex_);
  memory_fraction_ = fraction;
}

PoolState DeviceCachingAllocator::checkpoint_pool(MempoolId pool) {
  std::lock_guard<std::mutex> lock(mutex_);
  PrivatePool& p = find_pool(pool, "checkpoint_pool");
  synchronize_and_release_events();
  PoolState state;
  state.device = device_;
  state.pool = pool;
  for (const auto& [address, block] : blocks_) {
    if (block->pool != &p) continue;
    if (block->prev == nullptr) {
      CheckpointSegment& segment = state.segments.emplace_back();
      segment.address = reinterpret_cast<uintptr_t>(address);
      segment.stream = block->stream;
      segment.small_pool = block->small_pool;
    }
    CheckpointSegment& segment = state.segments.back();
    segment.blocks.push_back(
        {reinterpret_cast<uintptr_t>(address), block->size, block->requested_size, block->allocated});
    segment.size += block->size;
  }
  return state;
}

// Note [Restoring a pool checkpoint]
// Every segment of the pool is cut back into the blocks the checkpoint lists (a segment taken
// after the checkpoint becomes one free block), and exactly the checkpoint's allocated blocks
// are allocated. A graph tree does this when it moves from one branch to another: the blocks
// that the prefix's live outputs occupy are allocated again, everything the other branch
// allocated is free. Allocated blocks that the checkpoint does not list stop being
// allocations (the caller drops their owners and must not free them).
PoolRestoreResult DeviceCachingAllocator::restore_pool(const PoolState& state) {
  std::lock_guard<std::mutex> lock(mutex_);
  TG_CHECK(state.device == device_, "[CachingAllocator::restore_pool] the checkpoint is of device ", state.device,
           ", not ", device_);
  PrivatePool& p = find_pool(state.pool, "restore_pool");
  synchronize_and_release_events();
  for (const CheckpointSegment& segment : state.segments) {
    auto it = blocks_.find(reinterpret_cast<char*>(segment.address));
    bool ok = it != blocks_.end() && it->second->pool == &p && it->second->prev == nullptr;
    size_t size = 0;
    for (const Block* b = ok ? it->second.get() : nullptr; b != nullptr; b = b->next) size += b->size;
    TG_CHECK(ok && size == segment.size, "[CachingAllocator::restore_pool] segment at 0x", std::hex, segment.address,
             std::dec, " of the checkpoint is no longer a segment of pool ", state.pool.id,
             " (it was released since the checkpoint was taken)");
  }

  PoolRestoreResult result;
  std::vector<Block*> heads;
  for (const auto& [address, block] : blocks_) {
    if (block->pool == &p && block->prev == nullptr) heads.push_back(block.get());
  }
  // Collapse every segment into one free block, forgetting its allocations.
  for (Block* head : heads) {
    for (Block* b = head; b != nullptr; b = b->next) {
      if (b->allocated) {
        result.freed.push_back(b->address);
        stats_.allocated_bytes.decrease(static_cast<int64_t>(b->size));
        stats_.active_bytes.decrease(static_cast<int64_t>(b->size));
        stats_.requested_bytes.decrease(static_cast<int64_t>(b->requested_size));
        stats_.allocations.decrease(1);
      } else {
        pool_of(*b).blocks.erase(b);
      }
    }
    while (head->next != nullptr) absorb_next(head);
    head->allocated = false;
    head->requested_size = 0;
    head->stream_uses.clear();
  }
  // Cut the segments the checkpoint lists as it lists them.
  for (const CheckpointSegment& segment : state.segments) {
    Block* block = blocks_.at(reinterpret_cast<char*>(segment.address)).get();
    for (size_t i = 0; i < segment.blocks.size(); ++i) {
      const CheckpointBlock& cb = segment.blocks[i];
      if (i + 1 < segment.blocks.size()) {
        auto tail = std::make_unique<Block>(block->address + cb.size, block->size - cb.size, block->stream,
                                            block->small_pool);
        tail->pool = block->pool;
        tail->prev = block;
        tail->next = block->next;
        if (tail->next != nullptr) tail->next->prev = tail.get();
        block->next = tail.get();
        block->size = cb.size;
        blocks_.emplace(tail->address, std::move(tail));
      }
      if (cb.allocated) {
        block->allocated = true;
        block->requested_size = cb.requested_size;
        stats_.allocated_bytes.increase(static_cast<int64_t>(block->size));
        stats_.active_bytes.increase(static_cast<int64_t>(block->size));
        stats_.requested_bytes.increase(static_cast<int64_t>(cb.requested_size));
        stats_.allocations.increase(1);
        auto was = std::find(result.freed.begin(), result.freed.end(), block->address);
        if (was != result.freed.end()) {
          result.freed.erase(was);  // allocated before and after: the caller's owner stays
        } else {
          result.allocated.push_back(block->address);
        }
      } else {
        block->freed_at = ++clock_;
        pool_of(*block).blocks.insert(block);
      }
      block = block->next;
    }
  }
  for (Block* head : heads) {
    if (head->is_whole_segment() && !head->allocated && !pool_of(*head).blocks.contains(head)) {
      head->freed_at = ++clock_;
      pool_of(*head).blocks.insert(head);
    }
  }
  return result;
}

PrivatePool& DeviceCachingAllocator::find_pool(MempoolId pool, const char* op) const {
  auto it = private_pools_.find(pool);
  TG_CHECK(it != private_pools_.end(), "[CachingAllocator::", op, "] no private pool with id ", pool.id,
           " on device ", device_, " (it was never created, or its last user released it)");
  return *it->second;
}

// Precondition: no outstanding events. Returns the pool's whole free segments; erases the
// pool when it has no users and no segments left.
void DeviceCachingAllocator::release_free_segments(PrivatePool& pool) {
  for (BlockPool* blocks : {&pool.small_blocks, &pool.large_blocks}) {
    for (auto it = blocks->blocks.begin(); it != blocks->blocks.end();) {
      Block* block = *it;
      if (!block->is_whole_segment()) {
        ++it;
        continue;
      }
      it = blocks->blocks.erase(it);
      release_segment(block);
    }
  }
  erase_pool_if_unused(&pool);
}

void DeviceCachingAllocator::erase_pool_if_unused(PrivatePool* pool) {
  if (pool->use_count == 0 && pool->segments == 0) private_pools_.erase(pool->id);
}

}  // namespace tg::alloc
