// parallel_for: splits [0, n) into one contiguous range per thread when the work is large
// enough to pay for waking them (n > grain), else runs it on the calling thread. The ranges
// depend on n, grain and the thread count only (tg::set_num_threads), not on which thread runs
// them, so a result is the same from run to run. They run on tensorgen's pool
// (cpu/thread_pool.h), the calling thread included. The body must not throw: check everything
// before the loop.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/parallel.h"
#include "cpu/thread_pool.h"

namespace tg::cpu {

// Elements below which a pointwise loop stays on one thread.
inline constexpr int64_t kParallelGrain = 32768;

template <typename F>
void parallel_for(int64_t n, int64_t grain, const F& body) {
  if (n > grain && !in_parallel_region()) {
    const int threads = get_num_threads();
    if (threads > 1) {
      const int64_t per_range = std::max<int64_t>(grain, 1);
      const int64_t ranges = std::min<int64_t>(threads, (n + per_range - 1) / per_range);
      struct Split {
        const F* body;
        int64_t n, chunk;
      } split{&body, n, (n + ranges - 1) / ranges};
      run_tasks(ranges, threads, [](const void* context, int64_t index) {
        const Split& s = *static_cast<const Split*>(context);
        const int64_t begin = index * s.chunk, end = std::min(s.n, begin + s.chunk);
        if (begin < end) (*s.body)(begin, end);
      }, &split);
      return;
    }
  }
  if (n > 0) body(int64_t{0}, n);
}

}  // namespace tg::cpu
