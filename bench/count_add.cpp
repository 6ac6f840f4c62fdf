// count_add N [add|add_grad|narrow]: N 1-element adds (add_grad: with `a` requiring grad, so
// every add records its autograd node; narrow: N narrow views of a tensor without autograd)
// after a warm-up, for instruction counts under `valgrind --tool=callgrind`
// (tools/count-op-instructions.sh runs it for N and 2N and divides the difference, so
// start-up and warm-up cancel out).
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <tensorgen/tensorgen.h>

#include "bench_util.h"

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 1000;
  const char* mode = argc > 2 ? argv[2] : "add";
  tg::Tensor a = tg::ones({1}), b = tg::ones({1});
  if (std::strcmp(mode, "add_grad") == 0) {
    a.requires_grad_(true);
  } else if (std::strcmp(mode, "add") != 0 && std::strcmp(mode, "narrow") != 0) {
    std::fprintf(stderr, "count_add: unknown mode '%s' (expected add, add_grad or narrow)\n", mode);
    return 2;
  }
  if (std::strcmp(mode, "narrow") == 0) {
    for (int i = 0; i < 100; ++i) bench::do_not_optimize(a.narrow(0, 0, 1));
    for (long i = 0; i < n; ++i) bench::do_not_optimize(a.narrow(0, 0, 1));
    return 0;
  }
  for (int i = 0; i < 100; ++i) bench::do_not_optimize(tg::add(a, b));
  for (long i = 0; i < n; ++i) bench::do_not_optimize(tg::add(a, b));
  return 0;
}
