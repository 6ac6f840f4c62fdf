// trace_module: tg::nn modules captured with their parameters and buffers as named graph
// inputs, replayed by StaticModule bit for bit against the module's own forward, and saved.
#include <doctest/doctest.h>

#include <filesystem>

#include "graph_test_models.h"
#include "jit/jit.h"
#include "nn/nn.h"

using namespace tg;
using namespace tg::graph_test;
using tg::jit::Graph;
using tg::jit::StaticModule;

namespace {

// A pre-norm transformer block made of tg::nn layers.
struct BlockImpl : nn::Module {
  BlockImpl(int64_t dim, int64_t heads, int64_t ff)
      : ln1(register_module("ln1", nn::LayerNorm(std::vector<int64_t>{dim}))),
        attn(register_module("attn", nn::MultiheadAttention(dim, heads))),
        ln2(register_module("ln2", nn::LayerNorm(std::vector<int64_t>{dim}))),
        fc1(register_module("fc1", nn::Linear(dim, ff))),
        fc2(register_module("fc2", nn::Linear(ff, dim))) {}
  Tensor forward(const Tensor& x) {  // x: [seq, batch, dim]
    Tensor a = ln1->forward(x);
    Tensor h = x + std::get<0>(attn->forward(a, a, a, {}, /*need_weights=*/false));
    return h + fc2->forward(nn::functional::gelu(fc1->forward(ln2->forward(h))));
  }
  std::shared_ptr<nn::LayerNormImpl> ln1;
  std::shared_ptr<nn::MultiheadAttentionImpl> attn;
  std::shared_ptr<nn::LayerNormImpl> ln2;
  std::shared_ptr<nn::LinearImpl> fc1, fc2;
};

nn::Sequential make_mlp() {
  manual_seed(11);
  return nn::Sequential(nn::Linear(32, 64), nn::ReLU(), nn::Linear(64, 10));
}

// The module's state then the data, as the traced graph takes them.
std::vector<Tensor> graph_inputs(const nn::Module& module, const std::vector<Tensor>& data) {
  std::vector<Tensor> in = jit::module_state(module).tensors;
  for (const Tensor& t : data) in.push_back(t.detach());
  for (Tensor& t : in) t = t.detach();
  return in;
}

std::vector<std::string> input_names(const Graph& g) {
  std::vector<std::string> names;
  for (int v : g.inputs()) names.push_back(g.name(v));
  return names;
}

}  // namespace

TEST_CASE("trace_module: an nn::Sequential MLP's parameters are graph inputs named by their dotted paths") {
  nn::Sequential mlp = make_mlp();
  const Graph g = jit::trace_module(mlp, {randn({4, 32})});
  jit::lint_graph(g);
  CHECK(input_names(g) == std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias", "input0"});
  CHECK(g.outputs().size() == 1);
  // The names are in the saved file, where a person reads them.
  const std::string yaml = g.to_yaml();
  CHECK(yaml.find("0.weight") != std::string::npos);
  CHECK(yaml.find("2.bias") != std::string::npos);
}

TEST_CASE("trace_module: StaticModule equals the MLP's eager forward bit for bit, for several batches") {
  nn::Sequential mlp = make_mlp();
  StaticModule m(jit::trace_module(mlp, {randn({4, 32})}));
  NoGradGuard no_grad;
  for (int64_t batch : {4, 1, 64, 4}) {
    CAPTURE(batch);
    const Tensor x = randn({batch, 32});
    const Tensor eager = mlp->forward(x);
    const std::vector<Tensor> in = graph_inputs(*mlp, {x});
    CHECK(bitwise_equal(m.run(in)[0], eager));
    CHECK(bitwise_equal(m.run(in)[0], eager));  // the planned run
  }
  // New parameter values are new inputs, not baked-in constants.
  for (Tensor& p : mlp->parameters()) p.mul_(0.5);
  const Tensor x = randn({4, 32});
  CHECK(bitwise_equal(m.run(graph_inputs(*mlp, {x}))[0], mlp->forward(x)));
}

TEST_CASE("trace_module: a transformer block built from tg::nn replays bit for bit and survives a saved file") {
  manual_seed(5);
  auto block = std::make_shared<BlockImpl>(32, 4, 64);
  const Tensor example = randn({8, 2, 32});
  const Graph g = jit::trace_module(block, {example});
  jit::lint_graph(g);
  const std::vector<std::string> names = input_names(g);
  REQUIRE(names.size() == block->parameters().size() + 1);
  CHECK(names.front() == "ln1.weight");
  CHECK(std::find(names.begin(), names.end(), "attn.in_proj_weight") != names.end());
  CHECK(std::find(names.begin(), names.end(), "attn.out_proj.weight") != names.end());
  CHECK(names.back() == "input0");

  const std::string path = (std::filesystem::temp_directory_path() / "tg_trace_module_block.yaml").string();
  g.save(path);
  const Graph loaded = jit::load(path);
  CHECK(loaded == g);
  std::filesystem::remove(path);

  StaticModule from_trace(g), from_file(loaded);
  NoGradGuard no_grad;
  for (int round = 0; round < 3; ++round) {
    CAPTURE(round);
    const Tensor x = round == 0 ? example : randn({8, 2, 32});
    const Tensor eager = block->forward(x);
    const std::vector<Tensor> in = graph_inputs(*block, {x});
    CHECK(bitwise_equal(from_trace.run(in)[0], eager));
    CHECK(bitwise_equal(from_file.run(in)[0], eager));
  }
  CHECK(from_trace.num_plans() == 1);
}

TEST_CASE("trace_module: a training step through the module's parameters, backward included") {
  nn::Sequential mlp = make_mlp();
  auto step = [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor loss = mse_loss(mlp->forward(in[0]), in[1]);
    std::vector<Tensor> grads = autograd::grad({loss}, mlp->parameters());
    grads.insert(grads.begin(), loss);
    return grads;
  };
  const std::vector<Tensor> data = {randn({8, 32}), randn({8, 10})};
  const Graph g = jit::trace_module(*mlp, step, data);
  jit::lint_graph(g);
  CHECK(g.outputs().size() == 5);
  StaticModule m(g);
  const std::vector<Tensor> eager = step(data);
  const std::vector<Tensor> in = graph_inputs(*mlp, data);
  for (int run = 0; run < 2; ++run) {
    const std::vector<Tensor> got = m.run(in);
    REQUIRE(got.size() == eager.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(bitwise_equal(got[i], eager[i]));
  }
}

TEST_CASE("trace_module: bad uses are clear errors") {
  nn::Sequential mlp = make_mlp();
  // A data input that is one of the module's own tensors.
  const Tensor weight = mlp->parameters()[0];
  CHECK_THROWS_WITH_AS(jit::trace_module(*mlp, [&](const std::vector<Tensor>& in) { return in; }, {weight}),
                       doctest::Contains("is the module's tensor '0.weight'"), Error);
  // A forward that does not take that many tensors.
  CHECK_THROWS_WITH_AS(jit::trace_module(mlp, {randn({2, 32}), randn({2, 32})}),
                       doctest::Contains("does not take 2 tensors"), Error);
  // A tensor from outside the module and the inputs.
  const Tensor stray = randn({10});
  CHECK_THROWS_WITH_AS(
      jit::trace_module(*mlp, [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{mlp->forward(in[0]) + stray}; },
                        {randn({2, 32})}),
      doctest::Contains("neither a graph input"), Error);
}
