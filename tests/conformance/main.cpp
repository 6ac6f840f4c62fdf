// The conformance suite's main: doctest, minus the cpu_cuda cases where no GPU is present
// (one line says so), and the report (report.cpp) when the run ends. `--report=PATH` says
// where the report goes; `--report-only` exits 0 whatever the results (the build runs it so).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>

#include <tensorgen/tensorgen.h>

#include "report.h"

int main(int argc, char** argv) {
  bool report_only = false;
  int kept = 0;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--report-only") == 0) {
      report_only = true;
    } else if (std::strncmp(argv[i], "--report=", 9) == 0) {
      tg::conformance::set_report_path(argv[i] + 9);
    } else {
      argv[kept++] = argv[i];
    }
  }
  doctest::Context context;
  context.applyCommandLine(kept, argv);
  if (report_only) context.setOption("minimal", true);
  if (!tg::cuda::is_available()) {
    std::puts("conformance: no CUDA device; skipping the cpu_cuda checks");
    context.addFilter("test-case-exclude", "*: cpu_cuda");
    tg::conformance::set_cuda_skip_reason("no CUDA device where the suite ran");
  }
  const int status = context.run();
  return report_only ? 0 : status;
}
