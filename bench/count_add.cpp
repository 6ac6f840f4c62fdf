// count_add N [narrow]: N 1-element adds (or N narrow views of a tensor without autograd)
// after a warm-up, for instruction counts under `valgrind --tool=callgrind`
// (tools/count-op-instructions.sh runs it for N and 2N and divides the difference, so
// start-up and warm-up cancel out).
#include <cstdlib>
#include <cstring>

#include <tensorgen/tensorgen.h>

#include "bench_util.h"

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 1000;
  tg::Tensor a = tg::ones({1}), b = tg::ones({1});
  if (argc > 2 && std::strcmp(argv[2], "narrow") == 0) {
    for (int i = 0; i < 100; ++i) bench::do_not_optimize(a.narrow(0, 0, 1));
    for (long i = 0; i < n; ++i) bench::do_not_optimize(a.narrow(0, 0, 1));
    return 0;
  }
  for (int i = 0; i < 100; ++i) bench::do_not_optimize(tg::add(a, b));
  for (long i = 0; i < n; ++i) bench::do_not_optimize(tg::add(a, b));
  return 0;
}
