// MemPool: a shared handle to one private pool (PyTorch's graph_pool_handle()), of the CPU
// graph allocator or, for a CUDA device, of the CUDA caching allocator. Recordings captured
// into the same MemPool share its memory; the pool is released (its memory goes back to the
// host or device as it becomes free) when the last handle and the last recording using it are
// gone. Invariant: while a MemPool exists, its id names a live private pool of its device's
// allocator (cpu_graph_allocator() for the CPU) with use_count >= 1.
#pragma once

#include <cstddef>
#include <memory>

#include "alloc/caching_allocator.h"
#include "core/allocator.h"
#include "core/device.h"

namespace tg::graphs {

// The caching allocator, over host memory, that every CPU recording's private pool lives in.
// Process-wide; created on first use. Device 0 is the host.
alloc::CachingAllocator& cpu_graph_allocator();

// Whether `ptr` is a DataPtr that the graph allocator handed out (pool memory).
bool is_pool_memory(const DataPtr& ptr);

class MemPool {
 public:
  // A new private pool for CPU recordings.
  MemPool();
  // A new private pool on `device` (the CPU, or a CUDA device: -1 is the current one).
  explicit MemPool(Device device);

  alloc::MempoolId id() const { return state_->id; }
  Device device() const { return state_->device; }
  // Bytes of segments the pool holds now.
  size_t reserved_bytes() const;
  bool operator==(const MemPool& other) const { return state_ == other.state_; }

  // Makes every CPU allocation of this thread come from the pool (a tg::Allocator override)
  // until the scope ends. CPU pools only (a CUDA capture routes its stream instead). Pools are routed per capture stream; on the CPU, the stream of a
  // pool is its id, so consecutive captures into one pool reuse each other's free blocks.
  class AllocateScope {
   public:
    explicit AllocateScope(const MemPool& pool);
    ~AllocateScope();
    AllocateScope(const AllocateScope&) = delete;
    AllocateScope& operator=(const AllocateScope&) = delete;

   private:
    Allocator* previous_;
    alloc::MempoolId id_;
  };

 private:
  struct State {
    alloc::MempoolId id;
    Device device;
    alloc::CachingAllocator* allocator;
    ~State();
  };
  std::shared_ptr<State> state_;
};

}  // namespace tg::graphs
