// tensorgen against LibTorch, in one run: every figure as `name value unit`, LibTorch's
// (when built with it) as `libtorch.name value unit`, then a ratio table, the peer's version
// and the summary line `vs LibTorch: worst ratio W (op), median ratio M over N cases;
// mlp_step ratio R` (ratio = LibTorch's time / tensorgen's: higher is better). The two are timed
// alternately, batch by batch, and each keeps its best batch, so that a disturbance of the
// machine hits both alike. `triad_GBps` is a plain C++ loop: the machine's memory limit.
// TG_BENCH_CASES=tanh,softmax runs only the cases whose names contain one of the words (for
// working on a kernel; the summary line then covers those cases only).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench_cases.h"
#include "bench_figures.h"
#include "bench_util.h"

namespace {

constexpr int kRounds = 7;

double seconds_per_call(const bench::Case& c) {
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < c.iterations; ++i) c.run();
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(stop - start).count() / static_cast<double>(c.iterations);
}

// a[i] = b[i] + s * c[i] over 16M floats, with `threads` OpenMP threads.
double triad_gbps(int threads) {
  const int64_t n = bench::figures::k16M;
  std::vector<float> a(n), b(n, 1.0f), c(n, 2.0f);
  double best = 1e300;
  for (int r = 0; r < kRounds; ++r) {
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < n; ++i) a[i] = b[i] + 3.0f * c[i];
    const auto stop = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(stop - start).count());
    bench::do_not_optimize(a[n / 2]);
  }
  return bench::figures::gbps(3.0 * 4 * n, best);
}

// Whether TG_BENCH_CASES (comma-separated words) selects the case; all when it is unset.
bool selected(const std::string& name) {
  const char* words = std::getenv("TG_BENCH_CASES");
  if (words == nullptr || *words == '\0') return true;
  const std::string list = words;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string word = list.substr(start, comma - start);
    if (!word.empty() && name.find(word) != std::string::npos) return true;
    start = comma + 1;
  }
  return false;
}

}  // namespace

int main() {
  std::vector<bench::Case> ours = bench::tensorgen_cases();
  std::erase_if(ours, [](const bench::Case& c) { return !selected(c.name); });
  std::vector<bench::Case> peer = bench::libtorch_cases();
  std::map<std::string, const bench::Case*> peer_by_name;
  for (const auto& c : peer) peer_by_name[c.name] = &c;

  struct Row {
    std::string name, unit;
    double ours, peer;
    bool has_peer, lower_is_better;
  };
  std::vector<Row> rows;
  for (const bench::Case& c : ours) {
    const bench::Case* p = peer_by_name.count(c.name) ? peer_by_name[c.name] : nullptr;
    bench::tensorgen_set_threads(c.threads);
    if (p) bench::libtorch_set_threads(p->threads);
    c.run();  // warm up both
    if (p) p->run();
    double best_ours = 1e300, best_peer = 1e300;
    for (int r = 0; r < kRounds; ++r) {
      best_ours = std::min(best_ours, seconds_per_call(c));
      if (p) best_peer = std::min(best_peer, seconds_per_call(*p));
    }
    Row row{c.name, c.unit, c.figure(best_ours), p ? p->figure(best_peer) : 0.0, p != nullptr, c.lower_is_better};
    bench::report(row.name, row.ours, row.unit);
    if (p) bench::report("libtorch." + row.name, row.peer, row.unit);
    std::fflush(stdout);
    rows.push_back(row);
  }
  bench::tensorgen_set_threads(1);
  if (rows.empty()) {
    std::printf("no case matches TG_BENCH_CASES=%s\n", std::getenv("TG_BENCH_CASES"));
    return 1;
  }
  bench::report("triad_GBps", triad_gbps(2), "GBps");
  bench::report("triad_1t_GBps", triad_gbps(1), "GBps");

  if (!peer.empty()) {
    std::printf("\n%-28s %12s %12s %8s  %s\n", "figure", "tensorgen", "libtorch", "ratio", "(ratio > 1: tensorgen better)");
    std::vector<std::pair<double, std::string>> ratios;
    double mlp_step_ratio = 0;
    for (const Row& row : rows) {
      if (!row.has_peer) continue;
      // LibTorch's time over tensorgen's, whichever way the figure is written.
      const double ratio = row.lower_is_better ? row.peer / row.ours : row.ours / row.peer;
      std::printf("%-28s %12.2f %12.2f %8.2f  %s\n", row.name.c_str(), row.ours, row.peer, ratio, row.unit.c_str());
      ratios.emplace_back(ratio, row.name);
      if (row.name == "mlp_step_ms") mlp_step_ratio = ratio;
    }
    std::sort(ratios.begin(), ratios.end());
    const size_t n = ratios.size();
    const double median = n % 2 == 1 ? ratios[n / 2].first : (ratios[n / 2 - 1].first + ratios[n / 2].first) / 2;
    std::printf("# peer: LibTorch %s\n", bench::libtorch_version().c_str());
    std::printf("# tensorgen BLAS: %s\n", bench::tensorgen_blas().c_str());
    std::printf("vs LibTorch: worst ratio %.2f (%s), median ratio %.2f over %zu cases; mlp_step ratio %.2f\n",
                ratios.front().first, ratios.front().second.c_str(), median, n, mlp_step_ratio);
  } else {
    std::printf("\n(LibTorch not found at build time: install Debian's libtorch-dev and reconfigure for the peer figures)\n");
  }
  return 0;
}
