#include "alloc/device_caching_allocator.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>

#include "alloc/size_classes.h"
#include "core/error.h"

namespace tg::alloc {

namespace {

// Larger requests would overflow round_size and segment_size; no device has that much.
constexpr size_t kMaxRequest = std::numeric_limits<size_t>::max() / 4;

std::string format_bytes(size_t bytes) {
  constexpr double kKiB = 1024.0;
  char text[64];
  if (bytes < 1024) {
    std::snprintf(text, sizeof(text), "%zu bytes", bytes);
  } else if (bytes < (size_t{1} << 20)) {
    std::snprintf(text, sizeof(text), "%.2f KiB", bytes / kKiB);
  } else if (bytes < (size_t{1} << 30)) {
    std::snprintf(text, sizeof(text), "%.2f MiB", bytes / (kKiB * kKiB));
  } else {
    std::snprintf(text, sizeof(text), "%.2f GiB", bytes / (kKiB * kKiB * kKiB));
  }
  return text;
}

}  // namespace

DeviceCachingAllocator::DeviceCachingAllocator(RawMemoryBackend& backend, int device,
                                               CachingAllocatorOptions options)
    : backend_(backend), device_(device), options_(options), capacity_(backend.memory_info(device).total_bytes) {}

DeviceCachingAllocator::~DeviceCachingAllocator() {
  std::lock_guard<std::mutex> lock(mutex_);
  release_cached_segments();
}

void* DeviceCachingAllocator::allocate(size_t nbytes, StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (nbytes > kMaxRequest) {
    ++stats_.ooms;
    throw_out_of_memory(nbytes, nbytes);
  }
  process_events();

  const size_t rounded = round_size(nbytes);
  const bool small = is_small_size(rounded);
  auto route = routes_.find(stream);
  PrivatePool* private_pool = route == routes_.end() ? nullptr : route->second;
  BlockPool& pool = private_pool != nullptr ? (small ? private_pool->small_blocks : private_pool->large_blocks)
                                            : (small ? small_pool_ : large_pool_);
  // See Note [max_split_size].
  const size_t max_split = options_.max_split_size;
  const size_t max_block = rounded < max_split ? max_split - 1 : rounded + kLargeSegment;
  Block* block = pool.take_best_fit(stream, rounded, max_block);
  if (block == nullptr) {
    const size_t size = segment_size(rounded);
    if (private_pool == nullptr) collect_garbage(size);
    block = allocate_segment(size, stream, small, private_pool);
    if (block == nullptr) {
      // Waiting for events may free a cached block of this stream that fits; otherwise the
      // released segments make room for a new one.
      ++stats_.oom_retries;
      release_cached_segments();
      block = pool.take_best_fit(stream, rounded, max_block);
      if (block == nullptr) block = allocate_segment(size, stream, small, private_pool);
    }
    if (block == nullptr) {
      ++stats_.ooms;
      throw_out_of_memory(nbytes, size);
    }
  }
  TG_INTERNAL_ASSERT(block->is_free() && block->size >= rounded && block->stream == stream);
  if (block->size < max_split && should_split(small, block->size, rounded)) split(block, rounded);

  block->allocated = true;
  block->requested_size = nbytes;
  stats_.allocated_bytes.increase(static_cast<int64_t>(block->size));
  stats_.active_bytes.increase(static_cast<int64_t>(block->size));
  stats_.requested_bytes.increase(static_cast<int64_t>(nbytes));
  stats_.allocations.increase(1);
  return block->address;
}

void DeviceCachingAllocator::free(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  Block& block = find_allocated(ptr, "free");
  block.allocated = false;
  stats_.allocated_bytes.decrease(static_cast<int64_t>(block.size));
  stats_.requested_bytes.decrease(static_cast<int64_t>(block.requested_size));
  stats_.allocations.decrease(1);
  block.requested_size = 0;
  if (block.stream_uses.empty()) {
    free_block(&block);
  } else {
    record_events(&block);
  }
}

void DeviceCachingAllocator::record_stream(void* ptr, StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  Block& block = find_allocated(ptr, "record_stream");
  // Uses on the allocation stream are ordered before any reuse already.
  if (stream == block.stream) return;
  if (std::find(block.stream_uses.begin(), block.stream_uses.end(), stream) == block.stream_uses.end()) {
    block.stream_uses.push_back(stream);
  }
}

void DeviceCachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  release_cached_segments();
}

AllocatorStats DeviceCachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void DeviceCachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.reset_peaks();
}

void DeviceCachingAllocator::append_snapshot(std::vector<SegmentSnapshot>& segments) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [address, block] : blocks_) {
    if (block->prev == nullptr) {
      SegmentSnapshot& segment = segments.emplace_back();
      segment.device = device_;
      segment.address = reinterpret_cast<uintptr_t>(address);
      segment.stream = block->stream;
      segment.small_pool = block->small_pool;
      segment.private_pool = block->pool != nullptr ? block->pool->id.id : 0;
    }
    SegmentSnapshot& segment = segments.back();
    const BlockState state = block->allocated     ? BlockState::allocated
                             : block->is_pending() ? BlockState::pending_free
                                                   : BlockState::free;
    segment.blocks.push_back({reinterpret_cast<uintptr_t>(address), block->size, block->requested_size, state});
    segment.size += block->size;
    if (state == BlockState::allocated) segment.allocated_bytes += block->size;
    if (state != BlockState::free) segment.active_bytes += block->size;
  }
}

Block& DeviceCachingAllocator::find_allocated(void* ptr, const char* op) const {
  auto it = blocks_.find(static_cast<char*>(ptr));
  TG_CHECK(it != blocks_.end() && it->second->allocated, "[CachingAllocator::", op, "] pointer ", ptr,
           " is not a live allocation of this allocator on device ", device_,
           " (it was never allocated here, or was already freed)");
  return *it->second;
}

Block* DeviceCachingAllocator::allocate_segment(size_t size, StreamId stream, bool small_pool, PrivatePool* pool) {
  // See Note [Memory fraction].
  if (memory_fraction_ < 1.0 && static_cast<double>(static_cast<size_t>(stats_.reserved_bytes.current) + size) >
                                    memory_fraction_ * static_cast<double>(capacity_)) {
    return nullptr;
  }
  void* memory = backend_.raw_malloc(device_, size);
  if (memory == nullptr) return nullptr;
  char* address = static_cast<char*>(memory);
  auto [it, inserted] = blocks_.emplace(address, std::make_unique<Block>(address, size, stream, small_pool));
  TG_INTERNAL_ASSERT(inserted, "the backend returned ", memory, " twice");
  it->second->pool = pool;
  if (pool != nullptr) ++pool->segments;
  ++stats_.raw_mallocs;
  stats_.reserved_bytes.increase(static_cast<int64_t>(size));
  stats_.segments.increase(1);
  return it->second.get();
}

// Precondition: block is a whole free segment, already out of its pool.
void DeviceCachingAllocator::release_segment(Block* block) {
  TG_INTERNAL_ASSERT(block->is_free() && block->is_whole_segment());
  const size_t size = block->size;
  if (block->pool != nullptr) --block->pool->segments;
  backend_.raw_free(device_, block->address);
  blocks_.erase(block->address);
  ++stats_.raw_frees;
  stats_.reserved_bytes.decrease(static_cast<int64_t>(size));
  stats_.segments.decrease(1);
}

// Keeps the first `size` bytes in `block`; the rest becomes a free block in the same pool.
// Its next neighbour cannot be free (free neighbours are merged), so nothing merges.
void DeviceCachingAllocator::split(Block* block, size_t size) {
  auto tail = std::make_unique<Block>(block->address + size, block->size - size, block->stream, block->small_pool);
  tail->pool = block->pool;
  tail->prev = block;
  tail->next = block->next;
  if (tail->next != nullptr) tail->next->prev = tail.get();
  block->next = tail.get();
  block->size = size;
  tail->freed_at = ++clock_;
  pool_of(*tail).blocks.insert(tail.get());
  blocks_.emplace(tail->address, std::move(tail));
}

// The block stops being active: merge it with free neighbours and cache the result.
void DeviceCachingAllocator::free_block(Block* block) {
  TG_INTERNAL_ASSERT(block->is_free());
  stats_.active_bytes.decrease(static_cast<int64_t>(block->size));
  BlockPool& pool = pool_of(*block);
  if (block->next != nullptr && block->next->is_free()) {
    pool.blocks.erase(block->next);
    absorb_next(block);
  }
  if (block->prev != nullptr && block->prev->is_free()) {
    block = block->prev;
    pool.blocks.erase(block);
    absorb_next(block);
  }
  block->freed_at = ++clock_;
  PrivatePool* private_pool = block->pool;
  if (private_pool != nullptr && private_pool->use_count == 0 && block->is_whole_segment()) {
    release_segment(block);  // See Note [Private pools]: nobody uses the pool any more.
    erase_pool_if_unused(private_pool);
    return;
  }
  pool.blocks.insert(block);
}

// Grows `block` over its next neighbour, which is destroyed. Keeps block's address (the key
// of blocks_). Precondition: neither is in a pool.
void DeviceCachingAllocator::absorb_next(Block* block) {
  Block* next = block->next;
  block->size += next->size;
  block->next = next->next;
  if (block->next != nullptr) block->next->prev = block;
  blocks_.erase(next->address);
}

void DeviceCachingAllocator::record_events(Block* block) {
  for (StreamId stream : block->stream_uses) {
    pending_events_[stream].emplace_back(backend_.record_event(device_, stream), block);
    ++block->pending_events;
  }
  block->stream_uses.clear();
}

// Events of one stream complete in the order they were recorded, so each queue is polled
// only up to its first event that is not done.
void DeviceCachingAllocator::process_events() {
  for (auto it = pending_events_.begin(); it != pending_events_.end();) {
    auto& queue = it->second;
    while (!queue.empty() && backend_.event_done(queue.front().first)) {
      auto [event, block] = queue.front();
      queue.pop_front();
      backend_.release_event(event);
      if (--block->pending_events == 0) free_block(block);
    }
    it = queue.empty() ? pending_events_.erase(it) : std::next(it);
  }
}

void DeviceCachingAllocator::synchronize_and_release_events() {
  for (auto& [stream, queue] : pending_events_) {
    for (auto [event, block] : queue) {
      backend_.synchronize_event(event);
      backend_.release_event(event);
      if (--block->pending_events == 0) free_block(block);
    }
  }
  pending_events_.clear();
}

void DeviceCachingAllocator::release_cached_segments() {
  synchronize_and_release_events();
  std::vector<PrivatePool*> unused_pools;
  for (auto& [id, pool] : private_pools_) {
    if (pool->use_count == 0) unused_pools.push_back(pool.get());
  }
  for (PrivatePool* pool : unused_pools) release_free_segments(*pool);
  for (BlockPool* pool : {&small_pool_, &large_pool_}) {
    for (auto it = pool->blocks.begin(); it != pool->blocks.end();) {
      Block* block = *it;
      if (!block->is_whole_segment()) {
        ++it;
        continue;
      }
      it = pool->blocks.erase(it);
      release_segment(block);
    }
  }
}

// See Note [Garbage-collection threshold].
void DeviceCachingAllocator::collect_garbage(size_t incoming) {
  if (options_.garbage_collection_threshold <= 0.0) return;
  const auto limit = static_cast<size_t>(options_.garbage_collection_threshold * static_cast<double>(capacity_));
  auto fits = [&] { return static_cast<size_t>(stats_.reserved_bytes.current) + incoming <= limit; };
  if (fits()) return;
  std::vector<Block*> unused;
  for (BlockPool* pool : {&small_pool_, &large_pool_}) {
    for (Block* block : pool->blocks) {
      if (block->is_whole_segment()) unused.push_back(block);
    }
  }
  std::sort(unused.begin(), unused.end(), [](const Block* a, const Block* b) { return a->freed_at < b->freed_at; });
  for (Block* block : unused) {
    if (fits()) break;
    pool_of(*block).blocks.erase(block);
    release_segment(block);
    ++stats_.gc_released_segments;
  }
}

void DeviceCachingAllocator::throw_out_of_memory(size_t nbytes, size_t segment) const {
  const DeviceMemoryInfo info = backend_.memory_info(device_);
  const auto allocated = static_cast<size_t>(stats_.allocated_bytes.current);
  const auto reserved = static_cast<size_t>(stats_.reserved_bytes.current);
  const std::string fraction =
      memory_fraction_ < 1.0 ? " This process may reserve at most " + std::to_string(memory_fraction_) +
                                   " of the capacity (set_memory_fraction)."
                             : std::string();
  TG_THROW(OutOfMemoryError, "[CachingAllocator] out of memory on device ", device_, ": tried to allocate ",
           format_bytes(nbytes), " (", nbytes, " bytes, in a new segment of ", format_bytes(segment),
           "). The device has a total capacity of ", format_bytes(info.total_bytes), ", of which ",
           format_bytes(info.free_bytes), " is free. This allocator has ", format_bytes(allocated),
           " allocated and ", format_bytes(reserved), " reserved, of which ", format_bytes(reserved - allocated),
           " is reserved but unallocated (free parts of segments that are partly in use).", fraction);
}

}  // namespace tg::alloc
