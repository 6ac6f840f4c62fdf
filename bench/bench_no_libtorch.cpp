// bench_compare without LibTorch: no peer cases.
#include "bench_cases.h"

namespace bench {
void libtorch_set_threads(int) {}
std::vector<Case> libtorch_cases() { return {}; }
std::string libtorch_version() { return "none"; }
}  // namespace bench
