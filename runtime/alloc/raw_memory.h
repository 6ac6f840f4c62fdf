// RawMemoryBackend: what the caching allocator needs from a device, and nothing more.
// Memory: per-device raw_malloc/raw_free of whole segments. Ordering: streams are integer
// ids; an Event marks a point in one stream's work, and event_done(e) becomes true, and
// stays true, once the stream has run past that point.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tg::alloc {

// A stream of work on one device, named by an id the backend understands (for CUDA, the
// stream's index in the device's stream pool). Ids are per device.
using StreamId = uint64_t;

// An event handle from record_event. Opaque to the allocator: it only passes it back.
enum class Event : uint64_t {};

struct DeviceMemoryInfo {
  size_t free_bytes = 0;   // what raw_malloc could still hand out, as the device reports it
  size_t total_bytes = 0;  // the device's capacity
};

// Implementations: SimulatedBackend (tests, benchmarks); the CUDA backend (cudaMalloc,
// cudaFree, cudaEventRecord/Query/Synchronize/Destroy, cudaMemGetInfo).
//
// Threading: the caching allocator calls a backend while holding the mutex of the device
// named in the call, so calls for different devices can overlap; a backend shared between
// devices must be thread-safe.
class RawMemoryBackend {
 public:
  virtual ~RawMemoryBackend() = default;

  virtual int device_count() const = 0;

  // nbytes of device memory, or nullptr when the device cannot supply them (never throws
  // for lack of memory: the allocator then frees its cache and retries).
  virtual void* raw_malloc(int device, size_t nbytes) = 0;
  // Gives back a pointer raw_malloc returned for the same device. The caller guarantees no
  // stream still uses the memory (it synchronizes the events it recorded first).
  virtual void raw_free(int device, void* ptr) = 0;

  virtual DeviceMemoryInfo memory_info(int device) const = 0;

  // An event after all work submitted to `stream` so far. Each event is released exactly once.
  virtual Event record_event(int device, StreamId stream) = 0;
  // Non-blocking query: has the stream run past the event?
  virtual bool event_done(Event event) = 0;
  // Blocks until event_done(event) is true.
  virtual void synchronize_event(Event event) = 0;
  virtual void release_event(Event event) = 0;
};

}  // namespace tg::alloc
