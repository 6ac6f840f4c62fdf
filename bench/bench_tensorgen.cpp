// tensorgen's side of bench_compare.
#include <tensorgen/tensorgen.h>

#include <memory>

#include "bench_cases.h"
#include "bench_figures.h"
#include "bench_util.h"
#include "cpu/blas_core.h"
#include "cpu/blas_gemm.h"
#include "cpu/sgemm_choice.h"

namespace bench {
void tensorgen_set_threads(int n) { tg::set_num_threads(n); }
std::string tensorgen_blas() {
  const std::string core = tg::cpu::blas_core_name();
  const std::string floats = std::string("float products: ") + tg::cpu::cpu_gemm_name(tg::cpu::cpu_gemm()) + "; ";
  if (core.empty()) return floats + "not OpenBLAS";
  return floats + "OpenBLAS, " + core + " kernels (" + tg::cpu::blas_core_selection() + "); " +
         tg::cpu::blas_threads_selection() + ", products split over tensorgen's threads";
}
}  // namespace bench

#define FW tg
#define CASES_FUNCTION bench::tensorgen_cases
#include "bench_cases.inc"
