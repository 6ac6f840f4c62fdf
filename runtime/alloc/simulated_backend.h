// SimulatedBackend: a RawMemoryBackend with no device behind it, for tests and benchmarks.
// Memory: raw_malloc(d, n) fails (nullptr) iff bytes_in_use(d) + n > capacity; addresses are
// fake (never dereference them), 512-aligned, and never handed out twice.
// Streams: each (device, stream) numbers the events recorded on it 1, 2, ...; the test says
// how far the stream has run (finish_stream), and event e is done iff e.number <= that.
// Misuse (double free, unknown pointer, unknown or released event) throws tg::Error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "alloc/raw_memory.h"

namespace tg::alloc {

class SimulatedBackend final : public RawMemoryBackend {
 public:
  explicit SimulatedBackend(size_t capacity_per_device, int device_count = 1);

  int device_count() const override { return static_cast<int>(devices_.size()); }
  void* raw_malloc(int device, size_t nbytes) override;
  void raw_free(int device, void* ptr) override;
  DeviceMemoryInfo memory_info(int device) const override;
  Event record_event(int device, StreamId stream) override;
  bool event_done(Event event) override;
  // The host waits, so the stream has run at least up to the event.
  void synchronize_event(Event event) override;
  void release_event(Event event) override;

  // Test controls: the stream has run past every event recorded on it so far.
  void finish_stream(int device, StreamId stream);
  void finish_all_streams();

  // Observations.
  int64_t malloc_count(int device) const;         // successful raw_malloc calls
  int64_t failed_malloc_count(int device) const;  // raw_malloc calls answered with nullptr
  int64_t free_count(int device) const;
  size_t bytes_in_use(int device) const;
  // address -> size of every segment not yet freed: the leaks, once the allocator is gone.
  std::map<uintptr_t, size_t> live_allocations(int device) const;
  size_t live_event_count() const;  // recorded and not yet released
  int64_t synchronize_count() const;

 private:
  struct DeviceState {
    size_t capacity = 0;
    uintptr_t next_address = 0;
    size_t bytes_in_use = 0;
    int64_t mallocs = 0;
    int64_t failed_mallocs = 0;
    int64_t frees = 0;
    std::map<uintptr_t, size_t> live;  // address -> size
    std::set<uintptr_t> freed;         // to tell a double free from a wild pointer
  };
  struct StreamProgress {
    uint64_t recorded = 0;  // events recorded on the stream so far
    uint64_t finished = 0;  // events the stream has run past
  };
  struct EventRecord {
    int device;
    StreamId stream;
    uint64_t number;  // its position among the stream's events, from 1
  };

  // The index of `device` in devices_; throws IndexError when there is no such device.
  size_t checked(int device, const char* op) const;
  // Precondition: mutex_ held.
  const EventRecord& event_record(Event event, const char* op) const;

  mutable std::mutex mutex_;  // guards everything below
  std::vector<DeviceState> devices_;
  std::map<std::pair<int, StreamId>, StreamProgress> streams_;
  std::map<uint64_t, EventRecord> events_;  // live events by id
  uint64_t next_event_id_ = 1;
  int64_t synchronizations_ = 0;
};

}  // namespace tg::alloc
