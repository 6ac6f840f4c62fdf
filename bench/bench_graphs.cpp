// Recorded graphs (docs/graphs.md): replay against eager tensorgen (the peer) for a 50-op
// chain of small tensors and for an MLP training step, time per step and per node; and the
// pool bytes of a graph tree with two branches against the same graphs recorded separately.
// The last line is the summary: replay/eager per-node ratio, tree pool bytes vs separate.
#include <cstdio>

#include <tensorgen/tensorgen.h>

#include "bench_util.h"
#include "graph_chain.h"
#include "graphs/graphs.h"

namespace {

using Tensors = std::vector<tg::Tensor>;

struct Figures {
  double eager_step_ns;
  double replay_step_ns;
  size_t nodes;
};

template <typename Step>
Figures measure(const char* name, long iterations, Step&& step, size_t eager_ops) {
  step();  // warm-up
  const double eager = bench::best_ns_per_call(iterations, 5, step);
  tg::graphs::Graph graph;
  graph.capture_begin();
  step();
  graph.capture_end();
  const double replay = bench::best_ns_per_call(iterations, 5, [&] { graph.replay(); });
  const std::string prefix = name;
  bench::report(prefix + "_eager_step_ns", eager, "ns");
  bench::report(prefix + "_replay_step_ns", replay, "ns");
  bench::report(prefix + "_eager_per_op_ns", eager / static_cast<double>(eager_ops), "ns");
  bench::report(prefix + "_replay_per_node_ns", replay / static_cast<double>(graph.num_nodes()), "ns");
  bench::report(prefix + "_nodes", static_cast<double>(graph.num_nodes()), "nodes");
  // Nodes that replay by their CPU loop launches alone (Note [Replay by launches]).
  bench::report(prefix + "_launch_nodes", static_cast<double>(graph.recording().num_launch_calls()), "nodes");
  return {eager, replay, graph.num_nodes()};
}

}  // namespace

int main() {
  tg::manual_seed(0);
  // A 50-op chain of 4x4 tensors: the kernels are tiny, so the time is per-op overhead.
  const bench::GraphChain chain;
  const Figures c = measure("chain50", 20000, chain, bench::kChainOps);
  {  // what one of the chain's kernels costs called through the dispatcher, without autograd
    tg::Tensor out = tg::empty({4, 4});
    tg::NoGradGuard no_grad;
    bench::report("add_out_4x4_dispatched_ns", bench::best_ns_per_call(200000, 5, [&] { tg::add_out(out, chain.x, chain.y); }), "ns");
  }

  // An MLP training step: forward, backward, SGD update in place.
  tg::Tensor w1 = tg::randn({32, 64}).requires_grad_();
  tg::Tensor w2 = tg::randn({64, 8}).requires_grad_();
  tg::Tensor input = tg::randn({16, 32});
  tg::Tensor target = tg::randn({16, 8});
  auto train_step = [&] {
    tg::Tensor loss = (tg::matmul(tg::relu(tg::matmul(input, w1)), w2) - target).pow(2).mean();
    auto grads = tg::autograd::grad({loss}, {w1, w2});
    tg::NoGradGuard no_grad;
    w1.sub_(grads[0] * 1e-3);
    w2.sub_(grads[1] * 1e-3);
  };
  train_step();
  tg::graphs::Graph probe;  // how many kernels eager mode runs per step
  probe.capture_begin();
  train_step();
  probe.capture_end();
  measure("mlp_train_step", 2000, train_step, probe.num_nodes());

  // A tree: a prefix and two branches, against the three recorded separately.
  const int64_t n = 1 << 20;  // 4 MiB per tensor
  tg::graphs::TreeFunction prefix = [](const Tensors& in) { return Tensors{in[0] * 2.0}; };
  tg::graphs::TreeFunction branch_a = [](const Tensors& in) { return Tensors{(in[0] + 1.0).exp()}; };
  tg::graphs::TreeFunction branch_b = [](const Tensors& in) { return Tensors{(in[0] - 1.0).tanh() * 3.0}; };
  tg::Tensor big = tg::randn({n});
  tg::graphs::Tree tree;
  auto p = tree.wrap(prefix);
  auto a = tree.wrap(branch_a);
  auto b = tree.wrap(branch_b);
  a(p({big}));
  b(p({big}));
  size_t separate = 0;
  for (const tg::graphs::TreeFunction& fn : {prefix, branch_a, branch_b}) {
    tg::Tensor in = big.clone();
    fn({in});
    tg::graphs::Graph g;
    g.capture_begin();
    fn({in});
    g.capture_end();
    separate += g.pool().reserved_bytes();
  }
  const size_t tree_bytes = tree.pool().reserved_bytes();
  bench::report("tree_pool_bytes", static_cast<double>(tree_bytes), "bytes");
  bench::report("separate_graphs_pool_bytes", static_cast<double>(separate), "bytes");

  const double ratio = (c.replay_step_ns / static_cast<double>(c.nodes)) / (c.eager_step_ns / 50.0);
  std::printf("graph trees: replay/eager per-node ratio %.3f; tree pool %zu bytes vs separate graphs %zu bytes\n",
              ratio, tree_bytes, separate);
  return 0;
}
