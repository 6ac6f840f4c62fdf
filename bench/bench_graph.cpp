// The program level measured: static runtime against eager tensorgen and onnxruntime (through
// the project's .venv Python, driven from this run) on the same graphs, and the memory
// planner's figures per graph. Every figure is `name value unit`; the last line is the
// summary the issue asks for. See docs/performance.md.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "bench_graph_peer.h"
#include "bench_util.h"
#include "graph_test_models.h"
#include "jit/jit.h"
#include "npy_io.h"

using namespace tg;
using namespace tg::graph_test;

namespace {

constexpr int kRounds = 7;

struct GraphCase {
  std::string name;
  std::string model;  // for the LibTorch column (bench_graph_peer.h)
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> fn;
  std::vector<Tensor> inputs;
  long iterations;
  // How many leading inputs are parameters that an inference module freezes (0: none, the
  // training step, whose parameters are what it differentiates).
  size_t frozen_params = 0;
};

// A StaticModule of the case with its parameters frozen (StaticModuleOptions), as PyTorch's
// Static Runtime always freezes the module it is given; run() then takes the data inputs.
std::unique_ptr<jit::StaticModule> frozen_module(const jit::Graph& g, const GraphCase& c,
                                                 std::vector<Tensor>* data_inputs) {
  jit::StaticModuleOptions options;
  for (size_t i = 0; i < c.frozen_params; ++i) options.frozen_inputs["input" + std::to_string(i)] = c.inputs[i];
  data_inputs->assign(c.inputs.begin() + static_cast<std::ptrdiff_t>(c.frozen_params), c.inputs.end());
  return std::make_unique<jit::StaticModule>(g, options);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double us_per_call(long iterations, const std::function<void()>& body) {
  return bench::best_ns_per_call(iterations, 1, body) / 1e3;
}

// onnxruntime's best time per run, or a negative number (and `note`) when it cannot run.
double onnxruntime_us(const jit::Graph& g, const std::vector<Tensor>& inputs, const std::string& name, long iterations,
                      std::string* note) {
  const std::string python = TG_SOURCE_ROOT "/.venv/bin/python";
  if (!std::filesystem::exists(python)) {
    *note = "no " + python + " (run tools/setup-venv.sh)";
    return -1;
  }
  const std::string dir = std::filesystem::temp_directory_path() / ("tg_bench_graph_" + name);
  std::filesystem::create_directories(dir);
  g.save(dir + "/graph.yaml");
  for (size_t k = 0; k < inputs.size(); ++k) save_npy(inputs[k].detach(), dir + "/in_" + std::to_string(k) + ".npy");
  const std::string command = python + " " TG_SOURCE_ROOT "/tools/bench_onnxruntime.py " + dir + "/graph.yaml " + dir +
                              " " + std::to_string(iterations) + " " + std::to_string(kRounds) + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char buffer[4096];
  size_t n;
  while (pipe && (n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
  if (pipe) pclose(pipe);
  if (output.rfind("onnxruntime_us ", 0) == 0) return std::stod(output.substr(15));
  *note = output.rfind("onnxruntime_unsupported ", 0) == 0 ? "not exportable: " + output.substr(24) : output;
  while (!note->empty() && note->back() == '\n') note->pop_back();
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  const MlpShape mlp{784, 512, 10};
  auto mlp_in = [&](int64_t batch, bool training) {
    std::vector<Tensor> in = mlp_params(mlp, training);
    in.push_back(randn({batch, mlp.in}));
    if (training) in.push_back(randn({batch, mlp.out}));
    return in;
  };
  // A small MLP, where the per-node overhead rather than the matrix products is the time:
  // what the static runtime saves shows here (docs/performance.md).
  const MlpShape small{32, 64, 10};
  std::vector<Tensor> small_in = mlp_params(small, false);
  small_in.push_back(randn({1, small.in}));
  std::vector<Tensor> block_in = transformer_params(256, 1024);
  block_in.push_back(randn({4, 64, 256}));
  std::vector<GraphCase> cases = {
      {"mlp_infer_b1", "mlp_forward", mlp_forward, mlp_in(1, false), 2000, 4},
      {"mlp_small_32x64x10_infer_b1", "mlp_forward", mlp_forward, small_in, 20000, 4},
      {"mlp_infer_b64", "mlp_forward", mlp_forward, mlp_in(64, false), 300, 4},
      {"mlp_train_step_b64", "mlp_train_step", mlp_train_step, mlp_in(64, true), 100, 0},
      {"transformer_block_4x64x256", "transformer_block", transformer_block, block_in, 30, 12},
  };
  // `bench_graph count CASE eager|static|frozen N`: runs one case N times and nothing else,
  // for callgrind's instruction counts (tools/count-graph-instructions.sh), which are
  // noise-free.
  if (argc == 5 && std::string(argv[1]) == "count") {
    for (GraphCase& c : cases) {
      if (c.name != argv[2]) continue;
      const long n = std::atol(argv[4]);
      if (std::string(argv[3]) == "eager") {
        for (long i = 0; i < n; ++i) bench::do_not_optimize(c.fn(c.inputs));
      } else if (std::string(argv[3]) == "frozen") {
        std::vector<Tensor> data;
        auto m = frozen_module(jit::trace(c.fn, c.inputs), c, &data);
        for (long i = 0; i < n + 2; ++i) bench::do_not_optimize(m->run(data));
      } else {
        jit::StaticModule m(jit::trace(c.fn, c.inputs));
        for (long i = 0; i < n + 2; ++i) bench::do_not_optimize(m.run(c.inputs));
      }
      return 0;
    }
    std::fprintf(stderr, "bench_graph count: no case %s\n", argv[2]);
    return 2;
  }
  // `bench_graph time CASE ROUNDS`: eager, static and frozen alternately, ROUNDS rounds of the
  // case's iterations each; prints each mode's median time per call (a loaded machine's
  // figures swing, so medians of alternating rounds are the ones to compare).
  if (argc == 4 && std::string(argv[1]) == "time") {
    for (GraphCase& c : cases) {
      if (c.name != argv[2]) continue;
      const int rounds = std::max(1, std::atoi(argv[3]));
      const jit::Graph g = jit::trace(c.fn, c.inputs);
      jit::StaticModule m(g);
      std::vector<Tensor> data;
      std::unique_ptr<jit::StaticModule> frozen = c.frozen_params > 0 ? frozen_module(g, c, &data) : nullptr;
      for (int warm = 0; warm < 2; ++warm) {
        m.run(c.inputs);
        if (frozen) frozen->run(data);
      }
      std::vector<double> eager, stat, stat_frozen;
      for (int r = 0; r < rounds; ++r) {
        eager.push_back(us_per_call(c.iterations, [&] { bench::do_not_optimize(c.fn(c.inputs)); }));
        stat.push_back(us_per_call(c.iterations, [&] { bench::do_not_optimize(m.run(c.inputs)); }));
        if (frozen) stat_frozen.push_back(us_per_call(c.iterations, [&] { bench::do_not_optimize(frozen->run(data)); }));
      }
      bench::report("graph." + c.name + ".eager_median_us", median(eager), "us");
      bench::report("graph." + c.name + ".static_median_us", median(stat), "us");
      bench::report("graph." + c.name + ".static_speedup_median", median(eager) / median(stat), "x");
      if (frozen) {
        bench::report("graph." + c.name + ".static_frozen_median_us", median(stat_frozen), "us");
        bench::report("graph." + c.name + ".static_frozen_speedup_median", median(eager) / median(stat_frozen), "x");
      }
      return 0;
    }
    std::fprintf(stderr, "bench_graph time: no case %s\n", argv[2]);
    return 2;
  }
  double worst_ratio = 0, speedup_b1 = 0;
  int graphs = 0;
  for (GraphCase& c : cases) {
    const jit::Graph g = jit::trace(c.fn, c.inputs);
    jit::StaticModule m(g);
    m.run(c.inputs);
    m.run(c.inputs);
    std::vector<Tensor> data;
    std::unique_ptr<jit::StaticModule> frozen = c.frozen_params > 0 ? frozen_module(g, c, &data) : nullptr;
    if (frozen) {
      frozen->run(data);
      frozen->run(data);
    }
    double eager = 1e300, stat = 1e300, stat_frozen = 1e300;
    for (int r = 0; r < kRounds; ++r) {  // alternately, so a disturbance hits all alike
      eager = std::min(eager, us_per_call(c.iterations, [&] { bench::do_not_optimize(c.fn(c.inputs)); }));
      stat = std::min(stat, us_per_call(c.iterations, [&] { bench::do_not_optimize(m.run(c.inputs)); }));
      if (frozen) {
        stat_frozen =
            std::min(stat_frozen, us_per_call(c.iterations, [&] { bench::do_not_optimize(frozen->run(data)); }));
      }
    }
    bench::report("graph." + c.name + ".eager_us", eager, "us");
    bench::report("graph." + c.name + ".static_us", stat, "us");
    bench::report("graph." + c.name + ".static_speedup", eager / stat, "x");
    if (frozen) {
      bench::report("graph." + c.name + ".static_frozen_us", stat_frozen, "us");
      bench::report("graph." + c.name + ".static_frozen_speedup", eager / stat_frozen, "x");
    }
    // The figure the summary and the peers are compared with: the frozen module where the
    // case is inference (what a static runtime serves), else the plain one.
    const double best_static = frozen ? stat_frozen : stat;
    std::string note;
    std::vector<bench::graph_peer::HostTensor> host;
    for (const Tensor& t : c.inputs) {
      const Tensor contiguous = t.detach().contiguous();
      const float* data = contiguous.data_ptr<float>();
      host.push_back({t.sizes().vec(), std::vector<float>(data, data + contiguous.numel())});
    }
    const double torch_us =
        bench::graph_peer::libtorch_us(c.model, host, c.iterations, kRounds, get_num_threads(), &note);
    if (torch_us > 0) {
      bench::report("graph." + c.name + ".libtorch_eager_us", torch_us, "us");
      bench::report("graph." + c.name + ".static_over_libtorch", torch_us / best_static, "x");
    } else {
      std::printf("graph.%s.libtorch_eager_us - (%s)\n", c.name.c_str(), note.c_str());
    }
    note.clear();
    const double ort = onnxruntime_us(g, c.inputs, c.name, c.iterations, &note);
    if (ort > 0) {
      bench::report("graph." + c.name + ".onnxruntime_us", ort, "us");
      bench::report("graph." + c.name + ".static_over_onnxruntime", ort / stat, "x");
    } else {
      std::printf("graph.%s.onnxruntime_us - (%s)\n", c.name.c_str(), note.c_str());
    }
    if (frozen) {  // the frozen graph: its constants are initializers, which onnxruntime may prepack
      note.clear();
      const double ort_frozen = onnxruntime_us(frozen->graph(), data, c.name + "_frozen", c.iterations, &note);
      if (ort_frozen > 0) {
        bench::report("graph." + c.name + ".onnxruntime_frozen_us", ort_frozen, "us");
        bench::report("graph." + c.name + ".static_frozen_over_onnxruntime_frozen", ort_frozen / stat_frozen, "x");
      } else {
        std::printf("graph.%s.onnxruntime_frozen_us - (%s)\n", c.name.c_str(), note.c_str());
      }
    }
    const jit::PlanReport& plan = *m.last_plan();
    const double ratio = plan.lower_bound > 0 ? static_cast<double>(plan.plan.arena_bytes) / plan.lower_bound : 1.0;
    bench::report("plan." + c.name + ".nodes", static_cast<double>(g.nodes().size()), "nodes");
    bench::report("plan." + c.name + ".out_variant_nodes", static_cast<double>(m.num_out_variant_nodes()), "nodes");
    bench::report("plan." + c.name + ".arena_kib", plan.plan.arena_bytes / 1024.0, "KiB");
    bench::report("plan." + c.name + ".lower_bound_kib", plan.lower_bound / 1024.0, "KiB");
    bench::report("plan." + c.name + ".naive_total_kib", plan.naive_total / 1024.0, "KiB");
    bench::report("plan." + c.name + ".arena_over_lower_bound", ratio, "x");
    bench::report("plan." + c.name + ".planning_ms", plan.planning_ms, "ms");
    worst_ratio = std::max(worst_ratio, ratio);
    ++graphs;
    if (c.name == "mlp_infer_b1") speedup_b1 = eager / best_static;
  }
  // A 10^4-node graph: a chain with skip connections every 8 nodes, to time the planner.
  {
    auto long_chain = [](const std::vector<Tensor>& in) -> std::vector<Tensor> {
      Tensor x = in[0], skip = in[0];
      for (int k = 0; k < 5000; ++k) {
        x = relu(x) + (k % 8 == 0 ? skip : x);
        if (k % 8 == 0) skip = x;
      }
      return {x};
    };
    const std::vector<Tensor> in = {randn({16, 16})};
    jit::StaticModule m(jit::trace(long_chain, in));
    m.run(in);
    const jit::PlanReport& plan = *m.last_plan();
    const double ratio = static_cast<double>(plan.plan.arena_bytes) / plan.lower_bound;
    bench::report("plan.chain_10k.nodes", static_cast<double>(m.graph().nodes().size()), "nodes");
    bench::report("plan.chain_10k.buffers", static_cast<double>(m.last_managed_buffers()->size()), "buffers");
    bench::report("plan.chain_10k.arena_over_lower_bound", ratio, "x");
    bench::report("plan.chain_10k.planning_ms", plan.planning_ms, "ms");
    worst_ratio = std::max(worst_ratio, ratio);
    ++graphs;
  }
  std::printf("planner: worst arena/lower-bound ratio %.3f over %d graphs; static/eager speedup %.2f at batch 1\n",
              worst_ratio, graphs, speedup_b1);
  return 0;
}
