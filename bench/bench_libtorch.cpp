// LibTorch's side of bench_compare (built when Debian's libtorch-dev is installed).
#include <torch/torch.h>

#include <memory>

#include "bench_cases.h"
#include "bench_figures.h"
#include "bench_util.h"

namespace bench {
void libtorch_set_threads(int n) { at::set_num_threads(n); }
}  // namespace bench

#define FW torch
#define CASES_FUNCTION bench::libtorch_cases
#include "bench_cases.inc"
