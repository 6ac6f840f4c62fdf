// The cases of bench_compare: each framework (bench_tensorgen.cpp, bench_libtorch.cpp) gives
// the same list, by name, so that the two are timed alternately in one run. A case prepares
// its tensors once; `run` does the timed work once; `per_call` turns seconds per call into
// the figure (`name value unit`).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace bench {

struct Case {
  std::string name;                           // "add_16M_1t_GBps"
  std::string unit;                           // "GBps", "ns", "gflops", ...
  std::function<void()> run;                  // one call of the timed work
  std::function<double(double)> figure;       // seconds per call -> the printed value
  int threads = 1;                            // set before timing
  long iterations = 1;                        // calls per timed batch
  bool lower_is_better = true;
};

// Every case of one framework. The sizes and work are the same in both.
std::vector<Case> tensorgen_cases();
std::vector<Case> libtorch_cases();  // empty when built without LibTorch

void tensorgen_set_threads(int n);
// The BLAS tensorgen's products run, for the run's header.
std::string tensorgen_blas();
void libtorch_set_threads(int n);
// "2.15.0" (TORCH_VERSION_MAJOR.MINOR.PATCH of the LibTorch built against), "none" without one.
std::string libtorch_version();

}  // namespace bench
