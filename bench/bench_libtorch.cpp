// LibTorch's side of bench_compare (built against -Dlibtorch_dir's wheel or Debian's libtorch-dev).
#include <torch/torch.h>
#include <torch/version.h>

#include <memory>
#include <string>

#include "bench_cases.h"
#include "bench_figures.h"
#include "bench_util.h"

namespace bench {
void libtorch_set_threads(int n) { at::set_num_threads(n); }
std::string libtorch_version() {
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
         std::to_string(TORCH_VERSION_PATCH);
}
}  // namespace bench

#define FW torch
#define CASES_FUNCTION bench::libtorch_cases
#include "bench_cases.inc"
