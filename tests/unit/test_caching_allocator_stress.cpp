// Randomized tests of the caching allocator: thousands of operations on several streams
// (allocate, free, record_stream, streams running ahead, empty_cache) checked after every
// step against a reference model of what must hold, and concurrent use from threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "alloc/caching_allocator.h"
#include "alloc/size_classes.h"
#include "alloc_test_helpers.h"
#include "core/error.h"

using namespace tg::alloc;
using namespace alloc_test;

namespace {

// The reference model: which allocations are live, which freed blocks wait on events, and
// the events each stream has recorded and run past. It does not decide where blocks go;
// it checks that whatever the allocator decides is safe and that its figures add up.
struct LiveAllocation {
  size_t requested = 0;
  size_t block_size = 0;  // as the snapshot reports it, checked against the size classes
  StreamId stream = 0;
  std::set<StreamId> uses;  // streams named by record_stream, other than `stream`
};

struct PendingEvent {
  StreamId stream;
  uint64_t number;  // its position among the events recorded on `stream`, from 1
  bool processed = false;
};

struct PendingFree {
  size_t block_size = 0;
  std::vector<PendingEvent> events;
};

struct ExpectedPeaks {
  int64_t allocated = 0, active = 0, requested = 0, allocations = 0, reserved = 0, segments = 0;
};

class StressRun {
 public:
  StressRun(uint64_t seed, double gc_threshold)
      : device_(kCapacity, CachingAllocatorOptions{.garbage_collection_threshold = gc_threshold}), random_(seed) {}

  void run(int steps) {
    for (int step = 0; step < steps; ++step) {
      CAPTURE(step);
      // Phases of 500 steps alternately fill the device (until allocations fail) and drain it.
      const bool filling = (step / 500) % 2 == 0;
      const int allocate_below = filling ? 45 : 25;
      const int choice = pick(0, 99);
      if (choice < allocate_below) {
        allocate();
      } else if (choice < 70) {
        free_one();
      } else if (choice < 80) {
        record_stream();
      } else if (choice < 96) {
        finish_stream(kStreams[pick(0, kStreamCount - 1)]);
      } else if (choice < 98) {
        device_.allocator.empty_cache();
        synchronize_all();
      } else {
        device_.allocator.reset_peak_stats(0);
        reset_peaks_ = true;
      }
      check();
      if (!ok_) return;
    }
  }

  // Frees everything, lets every stream finish and empties the cache: nothing may leak.
  void drain() {
    while (!live_.empty()) free_at(live_.begin()->first);
    for (StreamId stream : kStreams) finish_stream(stream);
    device_.allocator.empty_cache();
    synchronize_all();
    check();
    CHECK(device_.backend.bytes_in_use(0) == 0);
    CHECK(device_.backend.malloc_count(0) == device_.backend.free_count(0));
    CHECK(device_.backend.live_event_count() == 0);
    const AllocatorStats stats = device_.allocator.stats(0);
    CHECK(stats.allocated_bytes.current == 0);
    CHECK(stats.active_bytes.current == 0);
    CHECK(stats.reserved_bytes.current == 0);
    CHECK(stats.requested_bytes.current == 0);
  }

  int64_t allocations_made() const { return allocations_made_; }
  int64_t ooms_seen() const { return ooms_seen_; }

 private:
  static constexpr size_t kCapacity = 256 * MiB;
  static constexpr int kStreamCount = 4;
  static constexpr StreamId kStreams[kStreamCount] = {1, 2, 3, 4};

  int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(random_); }

  // Log-uniform over 1 byte .. 48 MiB, so every size class is exercised.
  size_t random_size() {
    const double exponent = std::uniform_real_distribution<double>(0.0, 25.6)(random_);
    return std::max<size_t>(1, static_cast<size_t>(std::exp2(exponent)));
  }

  void allocate() {
    const size_t nbytes = random_size();
    const StreamId stream = kStreams[pick(0, kStreamCount - 1)];
    const AllocatorStats before = device_.allocator.stats(0);
    const int64_t failed_before = device_.backend.failed_malloc_count(0);
    void* ptr = nullptr;
    bool out_of_memory = false;
    try {
      ptr = device_.allocator.allocate(0, nbytes, stream);
    } catch (const tg::OutOfMemoryError&) {
      out_of_memory = true;
    }
    const AllocatorStats after = device_.allocator.stats(0);
    // Every retry follows a failed raw_malloc; every OOM follows a second one.
    CHECK(device_.backend.failed_malloc_count(0) - failed_before ==
          (after.oom_retries - before.oom_retries) + (after.ooms - before.ooms));
    poll_events();
    if (after.oom_retries > before.oom_retries) synchronize_all();

    const size_t rounded = round_size(nbytes);
    const MemorySnapshot snapshot = device_.allocator.snapshot();
    if (out_of_memory) {
      ++ooms_seen_;
      CHECK(after.ooms == before.ooms + 1);
      // Legitimate only if the device really lacks room for the segment, and no cached block
      // of this stream in the right pool could have served the request.
      CHECK(device_.backend.memory_info(0).free_bytes < segment_size(rounded));
      for (const SegmentSnapshot& segment : snapshot.segments) {
        if (segment.stream != stream || segment.small_pool != is_small_size(rounded)) continue;
        for (const BlockSnapshot& block : segment.blocks) {
          CHECK_FALSE((block.state == BlockState::free && block.size >= rounded));
        }
      }
      return;
    }
    ++allocations_made_;
    const auto address = reinterpret_cast<uintptr_t>(ptr);
    const BlockSnapshot* block = block_at(snapshot, ptr);
    REQUIRE(block != nullptr);
    const SegmentSnapshot& segment = *segment_of(snapshot, ptr);
    CHECK(segment.stream == stream);
    CHECK(segment.small_pool == is_small_size(rounded));
    CHECK(block->state == BlockState::allocated);
    CHECK(block->requested_size == nbytes);
    CHECK(block->size >= rounded);
    // Small blocks are split exactly; a large block keeps at most a 1 MiB remainder.
    CHECK(block->size - rounded <= (is_small_size(rounded) ? 0 : kSmallSize));
    // The new block overlaps no live allocation and no block awaiting its events.
    CHECK(live_.count(address) == 0);
    CHECK(pending_.count(address) == 0);
    CHECK_FALSE(overlaps(address, block->size));
    live_[address] = LiveAllocation{nbytes, block->size, stream, {}};
  }

  bool overlaps(uintptr_t address, size_t size) const {
    auto hits = [&](const auto& map) {
      auto next = map.lower_bound(address);
      if (next != map.end() && next->first < address + size) return true;
      if (next == map.begin()) return false;
      auto prev = std::prev(next);
      return prev->first + prev->second.block_size > address;
    };
    return hits(live_) || hits(pending_);
  }

  uintptr_t random_live() {
    auto it = live_.begin();
    std::advance(it, pick(0, static_cast<int>(live_.size()) - 1));
    return it->first;
  }

  void free_one() {
    if (!live_.empty()) free_at(random_live());
  }

  void free_at(uintptr_t address) {
    LiveAllocation allocation = live_.at(address);
    live_.erase(address);
    device_.allocator.free(reinterpret_cast<void*>(address));
    if (allocation.uses.empty()) return;
    PendingFree& pending = pending_[address];
    pending.block_size = allocation.block_size;
    for (StreamId use : allocation.uses) pending.events.push_back({use, ++recorded_[use]});
  }

  void record_stream() {
    if (live_.empty()) return;
    const uintptr_t address = random_live();
    const StreamId stream = kStreams[pick(0, kStreamCount - 1)];
    device_.allocator.record_stream(reinterpret_cast<void*>(address), stream);
    LiveAllocation& allocation = live_.at(address);
    if (stream != allocation.stream) allocation.uses.insert(stream);
  }

  void finish_stream(StreamId stream) {
    device_.backend.finish_stream(0, stream);
    finished_[stream] = recorded_[stream];
  }

  // What the allocator does at the start of each allocate: events seen done are released,
  // and a block whose events are all released becomes free.
  void poll_events() {
    for (auto it = pending_.begin(); it != pending_.end();) {
      bool all_done = true;
      for (PendingEvent& event : it->second.events) {
        if (event.number <= finished_[event.stream]) event.processed = true;
        all_done = all_done && event.processed;
      }
      it = all_done ? pending_.erase(it) : std::next(it);
    }
  }

  // empty_cache and the out-of-memory retry wait for every outstanding event.
  void synchronize_all() {
    for (auto& [address, pending] : pending_) {
      for (const PendingEvent& event : pending.events) {
        if (!event.processed) finished_[event.stream] = std::max(finished_[event.stream], event.number);
      }
    }
    pending_.clear();
  }

  void check() {
    const MemorySnapshot snapshot = device_.allocator.snapshot();
    const auto backend_segments = device_.backend.live_allocations(0);
    std::map<uintptr_t, const BlockSnapshot*> allocated, pending;
    uintptr_t end_of_previous = 0;
    REQUIRE(snapshot.segments.size() == backend_segments.size());
    for (const SegmentSnapshot& segment : snapshot.segments) {
      // Segments are the backend's live allocations, in address order, disjoint.
      CHECK(backend_segments.count(segment.address) == 1);
      CHECK(backend_segments.at(segment.address) == segment.size);
      CHECK(segment.address >= end_of_previous);
      end_of_previous = segment.address + segment.size;
      // Blocks tile the segment; no two free blocks are neighbours.
      uintptr_t cursor = segment.address;
      bool previous_free = false;
      for (const BlockSnapshot& block : segment.blocks) {
        CHECK(block.address == cursor);
        CHECK(block.size % kMinBlockSize == 0);
        cursor += block.size;
        const bool is_free = block.state == BlockState::free;
        CHECK_FALSE((is_free && previous_free));
        previous_free = is_free;
        if (block.state == BlockState::allocated) allocated[block.address] = &block;
        if (block.state == BlockState::pending_free) pending[block.address] = &block;
      }
      CHECK(cursor == segment.address + segment.size);
    }

    // The allocator's live and pending blocks are exactly the model's.
    REQUIRE(allocated.size() == live_.size());
    REQUIRE(pending.size() == pending_.size());
    int64_t allocated_bytes = 0, requested_bytes = 0, pending_bytes = 0;
    size_t unprocessed_events = 0;
    for (const auto& [address, allocation] : live_) {
      REQUIRE(allocated.count(address) == 1);
      CHECK(allocated[address]->size == allocation.block_size);
      allocated_bytes += static_cast<int64_t>(allocation.block_size);
      requested_bytes += static_cast<int64_t>(allocation.requested);
    }
    for (const auto& [address, free] : pending_) {
      REQUIRE(pending.count(address) == 1);
      CHECK(pending[address]->size == free.block_size);
      pending_bytes += static_cast<int64_t>(free.block_size);
      for (const PendingEvent& event : free.events) unprocessed_events += event.processed ? 0 : 1;
    }
    CHECK(device_.backend.live_event_count() == unprocessed_events);

    // Statistics equal the model's figures, and peaks the highest values seen since reset.
    const AllocatorStats stats = device_.allocator.stats(0);
    const auto reserved = static_cast<int64_t>(device_.backend.bytes_in_use(0));
    const auto segments = static_cast<int64_t>(backend_segments.size());
    CHECK(stats.allocated_bytes.current == allocated_bytes);
    CHECK(stats.requested_bytes.current == requested_bytes);
    CHECK(stats.active_bytes.current == allocated_bytes + pending_bytes);
    CHECK(stats.allocations.current == static_cast<int64_t>(live_.size()));
    CHECK(stats.reserved_bytes.current == reserved);
    CHECK(stats.segments.current == segments);
    CHECK(stats.raw_mallocs == device_.backend.malloc_count(0));
    CHECK(stats.raw_frees == device_.backend.free_count(0));
    if (reset_peaks_) {
      peaks_ = ExpectedPeaks{};
      reset_peaks_ = false;
    }
    auto raise = [](int64_t& peak, int64_t value) { peak = std::max(peak, value); };
    raise(peaks_.allocated, allocated_bytes);
    raise(peaks_.requested, requested_bytes);
    raise(peaks_.active, allocated_bytes + pending_bytes);
    raise(peaks_.allocations, static_cast<int64_t>(live_.size()));
    raise(peaks_.reserved, reserved);
    raise(peaks_.segments, segments);
    CHECK(stats.allocated_bytes.peak == peaks_.allocated);
    CHECK(stats.requested_bytes.peak == peaks_.requested);
    CHECK(stats.active_bytes.peak == peaks_.active);
    CHECK(stats.allocations.peak == peaks_.allocations);
    CHECK(stats.reserved_bytes.peak == peaks_.reserved);
    CHECK(stats.segments.peak == peaks_.segments);
    // After a figure goes wrong every later step would repeat the failure: stop the run.
    ok_ = ok_ && stats.allocated_bytes.current == allocated_bytes && stats.active_bytes.current == allocated_bytes + pending_bytes;
  }

  Device device_;
  std::mt19937_64 random_;
  std::map<uintptr_t, LiveAllocation> live_;
  std::map<uintptr_t, PendingFree> pending_;
  std::map<StreamId, uint64_t> recorded_;  // events recorded per stream (as the backend numbers them)
  std::map<StreamId, uint64_t> finished_;  // events each stream has run past
  ExpectedPeaks peaks_;
  bool reset_peaks_ = false;
  bool ok_ = true;
  int64_t allocations_made_ = 0;
  int64_t ooms_seen_ = 0;
};

}  // namespace

TEST_CASE("stress: random operations on four streams agree with the reference model at every step") {
  for (uint64_t seed : {1, 2, 3, 4, 5, 6}) {
    const double gc_threshold = seed % 2 == 0 ? 0.6 : 0.0;
    CAPTURE(seed);
    CAPTURE(gc_threshold);
    StressRun run(seed, gc_threshold);
    run.run(4000);
    run.drain();
    // The run reached the interesting states, not only the easy ones.
    CHECK(run.allocations_made() > 1000);
    CHECK(run.ooms_seen() > 0);
  }
}

TEST_CASE("concurrent allocate, record_stream and free from several threads keep the allocator consistent") {
  Device device(1024 * MiB);
  constexpr int kThreads = 4;
  std::mutex ranges_mutex;
  std::map<uintptr_t, size_t> ranges;  // live [address, address + requested) of every thread
  std::atomic<int> overlaps{0};
  std::atomic<int> errors{0};

  auto worker = [&](int index) {
    std::mt19937_64 random(static_cast<uint64_t>(index) + 100);
    const StreamId stream = static_cast<StreamId>(index) + 1;
    std::vector<std::pair<void*, size_t>> mine;
    try {
      for (int step = 0; step < 3000; ++step) {
        const int choice = static_cast<int>(random() % 10);
        if (choice < 4 || mine.empty()) {
          const size_t nbytes = 1 + random() % (2 * MiB);
          void* ptr = device.allocator.allocate(0, nbytes, stream);
          std::lock_guard<std::mutex> lock(ranges_mutex);
          const auto address = reinterpret_cast<uintptr_t>(ptr);
          auto next = ranges.lower_bound(address);
          if (next != ranges.end() && next->first < address + nbytes) ++overlaps;
          if (next != ranges.begin() && std::prev(next)->first + std::prev(next)->second > address) ++overlaps;
          ranges[address] = nbytes;
          mine.emplace_back(ptr, nbytes);
        } else if (choice < 5) {
          device.allocator.record_stream(mine[random() % mine.size()].first, 50 + random() % 3);
        } else if (choice < 6) {
          device.backend.finish_stream(0, 50 + random() % 3);
        } else {
          const size_t victim = random() % mine.size();
          {
            std::lock_guard<std::mutex> lock(ranges_mutex);
            ranges.erase(reinterpret_cast<uintptr_t>(mine[victim].first));
          }
          device.allocator.free(mine[victim].first);
          mine.erase(mine.begin() + static_cast<std::ptrdiff_t>(victim));
        }
      }
      for (auto& [ptr, nbytes] : mine) {
        {
          std::lock_guard<std::mutex> lock(ranges_mutex);
          ranges.erase(reinterpret_cast<uintptr_t>(ptr));
        }
        device.allocator.free(ptr);
      }
    } catch (const std::exception&) {
      ++errors;
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back(worker, i);
  for (auto& thread : threads) thread.join();

  CHECK(errors == 0);
  CHECK(overlaps == 0);
  CHECK(device.allocator.stats(0).allocated_bytes.current == 0);
  device.backend.finish_all_streams();
  device.allocator.empty_cache();
  CHECK(device.allocator.stats(0).active_bytes.current == 0);
  CHECK(device.backend.bytes_in_use(0) == 0);
  CHECK(device.backend.live_event_count() == 0);
  CHECK(device.backend.malloc_count(0) == device.backend.free_count(0));
}
