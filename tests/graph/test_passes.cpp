// Passes: dead-code elimination, constant folding, lint.
#include <doctest/doctest.h>

#include "graph_test_models.h"
#include "jit/jit.h"

using namespace tg;
using namespace tg::graph_test;
using tg::jit::Graph;

TEST_CASE("passes: dead-code elimination drops unread pure nodes and keeps writes") {
  auto fn = [](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor unused = relu(in[0]) * in[0];  // two dead nodes
    Tensor kept = in[0] + in[0];
    in[1].add_(in[0]);                    // a write: kept though nothing reads its result
    return {kept};
  };
  const Graph g = jit::trace(fn, {randn({3}), randn({3})});
  int removed = -1;
  const Graph pruned = jit::eliminate_dead_code(g, &removed);
  CHECK(removed == 2);
  CHECK(pruned.nodes().size() == g.nodes().size() - 2);
  jit::lint_graph(pruned);
  std::vector<Tensor> a = {randn({3}), randn({3})}, b = {a[0].clone(), a[1].clone()};
  CHECK(bitwise_equal(jit::StaticModule(pruned).run(a)[0], jit::StaticModule(g).run(b)[0]));
  CHECK(bitwise_equal(a[1], b[1]));
  CHECK(jit::parse_graph_yaml(pruned.to_yaml(), "pruned.yaml") == pruned);
}

TEST_CASE("passes: constant folding evaluates pure nodes of constants, not random ones") {
  auto fn = [](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor c = ones({3}) * 2.0 + 1.0;  // constants only: folds to one constant
    Tensor r = randn({3});             // random: must stay a node
    return {in[0] * c, r};
  };
  const Graph g = jit::trace(fn, {randn({3})});
  int folded = -1;
  const Graph f = jit::eliminate_dead_code(jit::fold_constants(g, &folded));
  CHECK(folded >= 3);
  jit::lint_graph(f);
  int randn_nodes = 0;
  for (const auto& node : f.nodes()) randn_nodes += node.op == "tg::randn";
  CHECK(randn_nodes == 1);
  CHECK(f.nodes().size() == 2);  // the multiply by the folded constant, and randn
  const Tensor x = randn({3});
  CHECK(bitwise_equal(jit::StaticModule(f).run({x})[0], x * (ones({3}) * 2.0 + 1.0)));
  CHECK(jit::parse_graph_yaml(f.to_yaml(), "folded.yaml") == f);
}

TEST_CASE("passes: lint names the node and what is wrong") {
  Graph g = jit::parse_graph_yaml(R"(format: tensorgen-graph/1
inputs:
  - {name: x, value: "%0", dtype: float32, sizes: [2], device: cpu}
nodes:
  - op: tg::relu
    args: {self: "%0"}
    outputs: [{value: "%1", dtype: float32, sizes: [2], device: cpu}]
outputs: ["%1"]
)",
                                  "lint.yaml");
  Graph reads_later = g;
  reads_later.mutable_nodes()[0].args[0] = jit::NodeArg::value(1);
  CHECK_THROWS_WITH_AS(jit::lint_graph(reads_later), doctest::Contains("node 0 (tg::relu) reads %1 before it is defined"),
                       ValueError);
  Graph wrong_kind = g;
  wrong_kind.mutable_nodes()[0].args[0] = jit::NodeArg::make_constant(IValue(int64_t{2}));
  CHECK_THROWS_WITH_AS(jit::lint_graph(wrong_kind), doctest::Contains("argument 'self' has type Tensor, got a constant of type int"),
                       ValueError);
  Graph extra = g;
  extra.mutable_nodes()[0].args.push_back(jit::NodeArg::value(0));
  CHECK_THROWS_WITH_AS(jit::lint_graph(extra), doctest::Contains("expected 1 arguments"), ValueError);
}
