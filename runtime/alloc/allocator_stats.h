// Statistics of one device's caching allocator. Byte figures are block or segment sizes:
// allocated = sum of allocated blocks; active = allocated + pending (freed, awaiting events);
// reserved = sum of segments held from the backend; requested = sum of the sizes asked for.
// Hence requested <= allocated <= active <= reserved at every moment.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tg::alloc {

// A quantity that goes up and down, with the highest value it has had since the last reset.
struct Stat {
  int64_t current = 0;
  int64_t peak = 0;

  void increase(int64_t amount) {
    current += amount;
    peak = std::max(peak, current);
  }
  void decrease(int64_t amount) { current -= amount; }
  void reset_peak() { peak = current; }
};

struct AllocatorStats {
  Stat allocated_bytes;
  Stat active_bytes;
  Stat reserved_bytes;
  Stat requested_bytes;
  Stat allocations;  // allocated blocks
  Stat segments;     // segments held from the backend

  int64_t raw_mallocs = 0;         // successful raw_malloc calls
  int64_t raw_frees = 0;           // raw_free calls (empty_cache, out-of-memory retries, GC)
  int64_t oom_retries = 0;         // raw_malloc failures answered by freeing the cache
  int64_t ooms = 0;                // OutOfMemoryError thrown
  int64_t gc_released_segments = 0;  // segments freed by the garbage-collection threshold

  void reset_peaks() {
    for (Stat* stat : {&allocated_bytes, &active_bytes, &reserved_bytes, &requested_bytes, &allocations,
                       &segments}) {
      stat->reset_peak();
    }
  }
};

}  // namespace tg::alloc
