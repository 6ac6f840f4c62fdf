// CachingAllocator: the device-agnostic caching allocator, one DeviceCachingAllocator per
// device of a RawMemoryBackend. See Note [Life of a block] in device_caching_allocator.h.
// Every pointer it returned and has not freed is owned by exactly one device.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "alloc/allocator_options.h"
#include "alloc/allocator_stats.h"
#include "alloc/memory_snapshot.h"
#include "alloc/pool_state.h"
#include "alloc/private_pool.h"
#include "alloc/raw_memory.h"

namespace tg::alloc {

class DeviceCachingAllocator;

// Thread-safe: each device has its own mutex, and a separate one guards the map from live
// pointers to their devices. No thread holds both at once.
class CachingAllocator {
 public:
  // The backend must outlive the allocator. Throws ValueError for invalid options.
  explicit CachingAllocator(RawMemoryBackend& backend, CachingAllocatorOptions options = {});
  // Returns every cached segment to the backend. Live allocations keep their segments.
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // At least nbytes of `device` memory for work on `stream`, or nullptr for 0 bytes.
  // Throws OutOfMemoryError (after freeing the cache and retrying) when the device is full.
  void* allocate(int device, size_t nbytes, StreamId stream);
  // Frees ptr now if only its allocation stream used it, else once every stream named by
  // record_stream has run past this point. free(nullptr) does nothing.
  void free(void* ptr);
  // Marks ptr as used by `stream` too, so that its memory is not reused before the work
  // that stream has been given so far is done.
  void record_stream(void* ptr, StreamId stream);

  // Waits for pending frees and returns every segment nobody uses, on every device.
  void empty_cache();
  AllocatorStats stats(int device) const;
  void reset_peak_stats(int device);
  MemorySnapshot snapshot() const;
  int device_count() const { return static_cast<int>(devices_.size()); }

  // Private pools of one device; see Note [Private pools] in device_caching_allocator.h.
  // A new pool, with one user.
  MempoolId create_pool(int device);
  // Another user shares the pool (a second recording into it).
  void retain_pool(int device, MempoolId pool);
  // One user fewer; at none, the pool's memory goes back to the backend as it becomes free.
  void release_pool(int device, MempoolId pool);
  // From now until end_allocate_to_pool, allocations on `stream` come from the pool.
  void begin_allocate_to_pool(int device, MempoolId pool, StreamId stream);
  void end_allocate_to_pool(int device, StreamId stream);
  PoolState checkpoint_pool(int device, MempoolId pool);
  // See Note [Restoring a pool checkpoint]. Pointers in result.freed are no longer live
  // allocations (free() rejects them); those in result.allocated are live again.
  PoolRestoreResult restore_pool(const PoolState& state);
  size_t pool_reserved_bytes(int device, MempoolId pool) const;
  // New segments fail once they would take reserved above fraction * capacity.
  void set_memory_fraction(int device, double fraction);

 private:
  DeviceCachingAllocator& device_allocator(int device, const char* op) const;
  // The device that owns ptr; erases the entry when `forget`. Throws for unknown pointers.
  int owner_of(void* ptr, const char* op, bool forget);

  std::vector<std::unique_ptr<DeviceCachingAllocator>> devices_;
  std::mutex owners_mutex_;                // guards owners_
  std::unordered_map<void*, int> owners_;  // the device of every live allocation
};

}  // namespace tg::alloc
