// tensorgen's side of bench_compare.
#include <tensorgen/tensorgen.h>

#include <memory>

#include "bench_cases.h"
#include "bench_figures.h"
#include "bench_util.h"

namespace bench {
void tensorgen_set_threads(int n) { tg::set_num_threads(n); }
}  // namespace bench

#define FW tg
#define CASES_FUNCTION bench::tensorgen_cases
#include "bench_cases.inc"
