// count_add N: N 1-element adds after a warm-up, for instruction counts under
// `valgrind --tool=callgrind` (tools/count-op-instructions.sh runs it for N and 2N and
// divides the difference, so start-up and warm-up cancel out).
#include <cstdlib>

#include <tensorgen/tensorgen.h>

#include "bench_util.h"

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 1000;
  tg::Tensor a = tg::ones({1}), b = tg::ones({1});
  for (int i = 0; i < 100; ++i) bench::do_not_optimize(tg::add(a, b));
  for (long i = 0; i < n; ++i) bench::do_not_optimize(tg::add(a, b));
  return 0;
}
