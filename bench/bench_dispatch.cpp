// Dispatcher overhead: nanoseconds per typed and per boxed call of a registered no-op
// kernel that takes two tensors. `--iterations N` runs N typed calls once and prints
// nothing else (for counting instructions with valgrind --tool=callgrind).
#include <cstdlib>
#include <cstring>

#include <tensorgen/tensorgen.h>

#include "bench_util.h"

namespace {

void noop_kernel(const tg::Tensor&, const tg::Tensor&) {}

TG_LIBRARY(bench, m) { m.def("noop(Tensor a, Tensor b) -> ()"); }
TG_LIBRARY_IMPL(bench, CPU, m) { m.impl("noop", tg::KernelFunction::makeFromUnboxedFunction<&noop_kernel>()); }

}  // namespace

int main(int argc, char** argv) {
  tg::Tensor a = tg::make_empty_tensor({1}, tg::kFloat, tg::kCPU);
  tg::Tensor b = tg::make_empty_tensor({1}, tg::kFloat, tg::kCPU);
  auto op = tg::Dispatcher::singleton().findSchemaOrThrow("bench::noop");
  auto typed = op.typed<void(const tg::Tensor&, const tg::Tensor&)>();

  if (argc == 3 && std::strcmp(argv[1], "--iterations") == 0) {
    long n = std::atol(argv[2]);
    for (long i = 0; i < n; ++i) typed.call(a, b);
    return 0;
  }

  double typed_ns = bench::best_ns_per_call(5'000'000, 7, [&] { typed.call(a, b); });
  bench::report("dispatch_typed_ns", typed_ns, "ns");

  tg::Stack stack;
  stack.reserve(2);
  double boxed_ns = bench::best_ns_per_call(2'000'000, 7, [&] {
    stack.clear();
    stack.emplace_back(a);
    stack.emplace_back(b);
    op.callBoxed(&stack);
  });
  bench::report("dispatch_boxed_ns", boxed_ns, "ns");
  return 0;
}
