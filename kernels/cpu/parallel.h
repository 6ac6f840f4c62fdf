// parallel_for: splits [0, n) into one contiguous range per thread when the work is large
// enough to pay for waking them (n > grain), else runs it on the calling thread. The body
// must not throw: check everything before the loop.
#pragma once

#include <algorithm>
#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tg::cpu {

// Elements below which a pointwise loop stays on one thread.
inline constexpr int64_t kParallelGrain = 32768;

template <typename F>
void parallel_for(int64_t n, int64_t grain, const F& body) {
#ifdef _OPENMP
  if (n > grain && !omp_in_parallel() && omp_get_max_threads() > 1) {
    const int64_t max_threads = std::min<int64_t>(omp_get_max_threads(), (n + grain - 1) / grain);
#pragma omp parallel num_threads(static_cast<int>(max_threads))
    {
      const int64_t threads = omp_get_num_threads();
      const int64_t chunk = (n + threads - 1) / threads;
      const int64_t begin = omp_get_thread_num() * chunk;
      const int64_t end = std::min(n, begin + chunk);
      if (begin < end) body(begin, end);
    }
    return;
  }
#else
  (void)grain;
#endif
  if (n > 0) body(int64_t{0}, n);
}

}  // namespace tg::cpu
