// HostMemoryBackend: a RawMemoryBackend over real host memory, so that the device-agnostic
// caching allocator (and its private pools) can serve CPU tensors that recorded graphs replay
// into. Memory: raw_malloc(0, n) returns 64-byte aligned memory from the C heap, or nullptr
// once bytes_in_use + n > capacity. Streams: the CPU runs work as it is issued, so every
// event is done when recorded. One device (0). Thread-safe (a mutex guards the counters).
#pragma once

#include <cstddef>
#include <mutex>

#include "alloc/raw_memory.h"

namespace tg::graphs {

class HostMemoryBackend final : public alloc::RawMemoryBackend {
 public:
  explicit HostMemoryBackend(size_t capacity);

  int device_count() const override { return 1; }
  void* raw_malloc(int device, size_t nbytes) override;
  void raw_free(int device, void* ptr) override;
  alloc::DeviceMemoryInfo memory_info(int device) const override;
  alloc::Event record_event(int device, alloc::StreamId stream) override;
  bool event_done(alloc::Event) override { return true; }
  void synchronize_event(alloc::Event) override {}
  void release_event(alloc::Event) override {}

 private:
  const size_t capacity_;
  mutable std::mutex mutex_;  // guards in_use_
  size_t in_use_ = 0;
};

}  // namespace tg::graphs
