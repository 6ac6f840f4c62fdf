// Timing helpers shared by the benchmarks. Every figure is printed as one line,
// `name value unit`, so runs can be compared with a diff or a script.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string_view>

namespace bench {

// Nanoseconds per call of `body`, the best of `repeats` runs of `iterations` calls each:
// the minimum is the least disturbed by other work on the machine.
template <typename Body>
double best_ns_per_call(long iterations, int repeats, Body&& body) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < iterations; ++i) body();
    auto stop = std::chrono::steady_clock::now();
    double ns = std::chrono::duration<double, std::nano>(stop - start).count() / static_cast<double>(iterations);
    best = std::min(best, ns);
  }
  return best;
}

inline void report(std::string_view name, double value, std::string_view unit) {
  std::printf("%.*s %.2f %.*s\n", static_cast<int>(name.size()), name.data(), value, static_cast<int>(unit.size()),
              unit.data());
}

// Keeps the compiler from deleting work whose result is unused.
template <typename T>
inline void do_not_optimize(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

}  // namespace bench
