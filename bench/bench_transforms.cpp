// tg::func transforms against hand-written equivalents, and against torch.func and JAX when the
// Python peers are installed (bench/transforms_peers.py, run from here so one run prints all).
// Figures: per-sample gradients of an MLP at batch 64 (vmap(grad) vs a loop of grad calls),
// jacrev and jacfwd of a 256->256 MLP vs a hand-built Jacobian, hessian of a small function.
// The last line is the summary the docs quote (docs/performance.md).
// Note [Timing transforms on a shared VM]: the run is single-threaded (tg::set_num_threads(1),
// which OpenBLAS follows too) and each case is timed twice: wall clock (bench_util.h) and the
// calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID). On a quiet machine the two agree; on the
// shared 2-core VM, loaded by other builds, the wall figures mostly measure the scheduler, so
// the ratios of the last line are taken from CPU time.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <tensorgen/tensorgen.h>

#include "bench_util.h"

namespace {

using tg::Tensor;
namespace func = tg::func;

double ms(double ns) { return ns / 1e6; }

double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// The best of `repeats` runs of `iterations` calls, in thread CPU time per call.
template <typename Body>
double best_cpu_ns_per_call(long iterations, int repeats, Body&& body) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const double start = thread_cpu_ns();
    for (long i = 0; i < iterations; ++i) body();
    best = std::min(best, (thread_cpu_ns() - start) / static_cast<double>(iterations));
  }
  return best;
}

// Wall and CPU time of one case, printed as `name value unit` twice (name and name_cpu).
template <typename Body>
double measure(const char* name, long iterations, int repeats, Body&& body) {
  const double wall = bench::best_ns_per_call(iterations, repeats, body);
  const double cpu = best_cpu_ns_per_call(iterations, repeats, body);
  bench::report(name, ms(wall), "ms");
  bench::report(std::string(name) + "_cpu", ms(cpu), "ms");
  return cpu;
}

void run_peers() {
  const char* candidates[] = {".venv/bin/python", "python3"};
  for (const char* python : candidates) {
    std::string command = std::string(python) + " " + TG_SOURCE_DIR "/bench/transforms_peers.py 2>/dev/null";
    if (FILE* pipe = popen(command.c_str(), "r")) {
      char line[512];
      bool any = false;
      while (fgets(line, sizeof line, pipe)) {
        std::fputs(line, stdout);
        any = true;
      }
      if (pclose(pipe) == 0 && any) return;
    }
  }
  std::printf("peers: torch.func and JAX not run (neither imports; pip install torch jax jaxlib)\n");
}

}  // namespace

int main() {
  tg::manual_seed(0);
  tg::set_num_threads(1);  // See Note [Timing transforms on a shared VM]
  // Per-sample gradients: loss(x, W1) = sum((tanh(x W1 + b1) W2)^2) / 2 for one sample x.
  const int64_t batch = 64, in = 128, hidden = 256, out = 10;
  Tensor xs = tg::randn({batch, in}), w1 = tg::randn({in, hidden}) * 0.05, b1 = tg::randn({hidden}),
         w2 = tg::randn({hidden, out}) * 0.05;
  auto loss = [&](const Tensor& x, const Tensor& w) {
    Tensor y = tg::tanh(x.unsqueeze(0).mm(w) + b1).mm(w2);
    return (y * y).sum() / 2;
  };
  auto per_sample = func::vmap(func::grad(loss, 1), {0, std::nullopt});
  func::reset_vmap_fallbacks();
  const double vmap_ns =
      measure("per_sample_grad_vmap_b64", 3, 7, [&] { bench::do_not_optimize(per_sample(xs, w1)); });
  auto grad_one = func::grad(loss, 1);
  const double loop_ns = measure("per_sample_grad_loop_b64", 1, 7, [&] {
    for (int64_t i = 0; i < batch; ++i) bench::do_not_optimize(grad_one(xs.select(0, i), w1));
  });

  // Jacobian of a 256 -> 256 MLP: f(x) = tanh(V tanh(W x)).
  const int64_t n = 256;
  Tensor w = tg::randn({n, n}) * 0.05, v = tg::randn({n, n}) * 0.05, x = tg::randn({n});
  auto mlp = [&](const Tensor& t) { return tg::tanh(v.mm(tg::tanh(w.mm(t.unsqueeze(1))))).squeeze(1); };
  auto hand = [&](const Tensor& t) {
    Tensor h = tg::tanh(w.mm(t.unsqueeze(1)));  // [n, 1]
    Tensor y = tg::tanh(v.mm(h));
    return (1 - y * y) * v.mm((1 - h * h) * w);  // diag(1 - y^2) V diag(1 - h^2) W
  };
  auto jacrev = func::jacrev(mlp);
  auto jacfwd = func::jacfwd(mlp);
  const double jacrev_ns = measure("jacrev_mlp_256", 3, 7, [&] { bench::do_not_optimize(jacrev(x)); });
  measure("jacfwd_mlp_256", 3, 7, [&] { bench::do_not_optimize(jacfwd(x)); });
  const double hand_ns = measure("jacobian_by_hand_256", 3, 7, [&] { bench::do_not_optimize(hand(x)); });
  const double jac_error = (jacrev(x) - hand(x)).abs().max().item<double>();
  bench::report("jacrev_max_abs_error_vs_hand", jac_error, "");

  // Hessian of sum(tanh(A x)) for x of 16.
  Tensor a = tg::randn({16, 16}), x16 = tg::randn({16});
  auto small = [&](const Tensor& t) { return tg::tanh(a.mm(t.unsqueeze(1))).sum(); };
  auto hessian = func::hessian(small);
  measure("hessian_16", 3, 7, [&] { bench::do_not_optimize(hessian(x16)); });

  run_peers();
  std::printf("transforms: vmap(grad)/loop speedup %.2f; jacrev/hand ratio %.2f; fallbacks %ld\n",
              loop_ns / vmap_ns, jacrev_ns / hand_ns, static_cast<long>(func::vmap_fallback_count()));
  return 0;
}
