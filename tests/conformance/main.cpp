// The conformance suite's main: doctest, minus the cpu_cuda cases where no GPU is present
// (one line says so), and the report (report.cpp) when the run ends.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include <tensorgen/tensorgen.h>

#include "report.h"

int main(int argc, char** argv) {
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  if (!tg::cuda::is_available()) {
    std::puts("conformance: no CUDA device; skipping the cpu_cuda checks");
    context.addFilter("test-case-exclude", "*: cpu_cuda");
    tg::conformance::set_cuda_skip_reason("no CUDA device where the suite ran");
  }
  return context.run();
}
