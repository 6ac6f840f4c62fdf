// tg::func transforms against hand-written equivalents, and against torch.func and JAX when the
// Python peers are installed (bench/transforms_peers.py, run from here so one run prints all).
// Figures: per-sample gradients of an MLP at batch 64 (vmap(grad) vs a loop of grad calls),
// jacrev and jacfwd of a 256->256 MLP vs a hand-built Jacobian, hessian of a small function.
// The last line is the summary the docs quote (docs/performance.md).
// Note [Timing transforms on a shared VM]: the run is single-threaded (tg::set_num_threads(1),
// which OpenBLAS follows too) and each case is timed twice, over the same calls: wall clock
// (steady_clock) and the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID). On a quiet
// machine the two agree; on the shared 2-core VM, loaded by other builds, the wall figures
// mostly measure the scheduler, so the ratios of the last line are taken from CPU time. The
// two cases of a ratio are timed in alternation (11 rounds, the best of each), as load comes
// and goes within seconds: timed one after the other, jacrev/hand moved between 1.6 and 4.2
// from run to run at a load of 18.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "bench_util.h"

namespace {

using tg::Tensor;
namespace func = tg::func;

double ms(double ns) { return ns / 1e6; }
constexpr int kRounds = 11;

double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

double wall_ns() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One case: its calls, and the best wall and CPU time per call seen so far.
struct Case {
  const char* name;
  long iterations;
  std::function<void()> body;
  double best_wall = 1e300, best_cpu = 1e300;

  void run_once() {
    const double wall = wall_ns(), cpu = thread_cpu_ns();
    for (long i = 0; i < iterations; ++i) body();
    best_cpu = std::min(best_cpu, (thread_cpu_ns() - cpu) / static_cast<double>(iterations));
    best_wall = std::min(best_wall, (wall_ns() - wall) / static_cast<double>(iterations));
  }
  void report() const {
    bench::report(name, ms(best_wall), "ms");
    bench::report(std::string(name) + "_cpu", ms(best_cpu), "ms");
  }
};

// Times the cases in turn, `repeats` rounds (A B A B ...), so that the two sides of a ratio
// see the same moments of the machine's load; prints each case's best wall and CPU time (name
// and name_cpu). See Note [Timing transforms on a shared VM].
void measure(std::vector<Case*> cases, int repeats) {
  for (Case* c : cases) c->run_once();  // warm-up: allocator, caches, lazy initialisation
  for (Case* c : cases) *c = Case{c->name, c->iterations, c->body};
  for (int r = 0; r < repeats; ++r) {
    for (Case* c : cases) c->run_once();
  }
  for (Case* c : cases) c->report();
}

// Runs bench/transforms_peers.py with each Python that exists, asking each for the peers not
// yet run: torch may live in .venv-torch (tools/setup-libtorch.sh) and JAX in .venv.
void run_peers() {
  const char* candidates[] = {".venv-torch/bin/python", ".venv/bin/python", "python3"};
  std::vector<std::string> remaining = {"torch.func", "jax"};
  for (const char* python : candidates) {
    if (remaining.empty()) break;
    if (std::string(python).find('/') != std::string::npos && access(python, X_OK) != 0) continue;
    std::string command = std::string(python) + " " + TG_SOURCE_DIR "/bench/transforms_peers.py";
    for (const std::string& peer : remaining) command += " " + peer;
    command += " 2>/dev/null";
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) continue;
    char line[512];
    while (fgets(line, sizeof line, pipe)) {
      const std::string text(line);
      if (text.rfind("peers: ", 0) == 0) continue;  // what this Python lacks: said once, at the end
      std::fputs(line, stdout);
      const std::string peer = text.rfind("torch_", 0) == 0 ? "torch.func" : text.rfind("jax_", 0) == 0 ? "jax" : "";
      remaining.erase(std::remove(remaining.begin(), remaining.end(), peer), remaining.end());
    }
    pclose(pipe);
  }
  for (const std::string& peer : remaining) std::printf("peers: %s not run (not installed)\n", peer.c_str());
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
  auto grad_one = func::grad(loss, 1);
  func::reset_vmap_fallbacks();
  Case vmap_case{"per_sample_grad_vmap_b64", 3, [&] { bench::do_not_optimize(per_sample(xs, w1)); }};
  Case loop_case{"per_sample_grad_loop_b64", 1, [&] {
                   for (int64_t i = 0; i < batch; ++i) bench::do_not_optimize(grad_one(xs.select(0, i), w1));
                 }};
  measure({&vmap_case, &loop_case}, kRounds);

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
  Case jacrev_case{"jacrev_mlp_256", 3, [&] { bench::do_not_optimize(jacrev(x)); }};
  Case jacfwd_case{"jacfwd_mlp_256", 3, [&] { bench::do_not_optimize(jacfwd(x)); }};
  Case hand_case{"jacobian_by_hand_256", 3, [&] { bench::do_not_optimize(hand(x)); }};
  measure({&jacrev_case, &jacfwd_case, &hand_case}, kRounds);
  const double jac_error = (jacrev(x) - hand(x)).abs().max().item<double>();
  bench::report("jacrev_max_abs_error_vs_hand", jac_error, "");

  // Hessian of sum(tanh(A x)) for x of 16.
  Tensor a = tg::randn({16, 16}), x16 = tg::randn({16});
  auto small = [&](const Tensor& t) { return tg::tanh(a.mm(t.unsqueeze(1))).sum(); };
  auto hessian = func::hessian(small);
  Case hessian_case{"hessian_16", 3, [&] { bench::do_not_optimize(hessian(x16)); }};
  measure({&hessian_case}, kRounds);

  run_peers();
  std::printf("transforms: vmap(grad)/loop speedup %.2f; jacrev/hand ratio %.2f; fallbacks %ld\n",
              loop_case.best_cpu / vmap_case.best_cpu, jacrev_case.best_cpu / hand_case.best_cpu,
              static_cast<long>(func::vmap_fallback_count()));
  return 0;
}
