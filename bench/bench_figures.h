// How each figure of bench_compare is computed from seconds per call, shared by both
// frameworks so that they measure the same thing.
#pragma once

#include <cstdint>

namespace bench::figures {

inline constexpr int64_t k16M = int64_t{1} << 24;
inline constexpr int kChainSteps = 100;
inline constexpr int64_t kMlpBatch = 128, kMlpIn = 784, kMlpHidden = 512, kMlpClasses = 10;
inline constexpr double kMlpLearningRate = 0.01;

inline double ns(double seconds) { return seconds * 1e9; }
inline double us(double seconds) { return seconds * 1e6; }
inline double ms(double seconds) { return seconds * 1e3; }
// float32 bytes moved per call / seconds, in GB/s.
inline double gbps(double bytes, double seconds) { return bytes / seconds / 1e9; }
inline double matmul_gflops(int64_t n, double seconds) { return 2.0 * n * n * n / seconds / 1e9; }

}  // namespace bench::figures
