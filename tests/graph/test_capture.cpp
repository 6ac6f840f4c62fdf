// Capture by tracing, and the static runtime against eager execution, bit for bit.
#include <doctest/doctest.h>

#include <sstream>

#include "graph_test_models.h"
#include "jit/jit.h"

using namespace tg;
using namespace tg::graph_test;
using tg::jit::Graph;
using tg::jit::StaticModule;

namespace {

int count_op(const Graph& g, std::string_view prefix) {
  int n = 0;
  for (const auto& node : g.nodes()) n += node.op.rfind(prefix, 0) == 0;
  return n;
}

std::vector<Tensor> mlp_inputs(const MlpShape& s, int64_t batch, bool training) {
  std::vector<Tensor> in = mlp_params(s, training);
  manual_seed(static_cast<uint64_t>(batch));
  in.push_back(randn({batch, s.in}));
  if (training) in.push_back(randn({batch, s.out}));
  return in;
}

void check_same(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    CHECK(bitwise_equal(a[i], b[i]));
  }
}

// Plans m's signature for `in` (a profiling run, then the first planned run), then checks that
// three more planned runs equal `expected` bit for bit and take nothing from the allocator.
void check_planned_runs_allocate_nothing(StaticModule& m, const std::vector<Tensor>& in, const Tensor& expected) {
  m.run(in);
  m.run(in);
  CountingAllocator counting;
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> out = m.run(in);  // dropped before the next run
    CHECK(bitwise_equal(out[0], expected));
  }
  CHECK(counting.bytes == 0);
  CHECK(counting.calls == 0);
}

}  // namespace

TEST_CASE("capture: the MLP forward becomes a graph of primitive operators") {
  const MlpShape s;
  std::vector<std::string> names = kMlpParamNames;
  names.push_back("x");
  const Graph g = jit::trace(mlp_forward, mlp_inputs(s, 4, false), names);
  jit::lint_graph(g);
  CHECK(g.inputs().size() == 5);
  CHECK(g.name(g.inputs()[4]) == "x");
  CHECK(g.outputs().size() == 1);
  // linear is CompositeImplicitAutograd: what is recorded is what it decomposes into.
  CHECK(count_op(g, "tg::linear") == 0);
  CHECK(count_op(g, "tg::addmm") == 2);
  CHECK(count_op(g, "tg::relu") == 1);
  CHECK(g.type(g.outputs()[0]).sizes == std::vector<int64_t>{4, s.out});
  std::ostringstream listing;
  listing << g;
  CHECK(listing.str().find("tg::addmm") != std::string::npos);
}

TEST_CASE("capture: StaticModule equals eager bit for bit on the MLP for several shape signatures") {
  const MlpShape s;
  StaticModule m(jit::trace(mlp_forward, mlp_inputs(s, 4, false)));
  for (int64_t batch : {4, 1, 64, 4, 1}) {
    CAPTURE(batch);
    const std::vector<Tensor> in = mlp_inputs(s, batch, false);
    check_same(m.run(in), mlp_forward(in));
    check_same(m.run(in), mlp_forward(in));  // the planned run, after the profiling one
  }
  CHECK(m.num_plans() == 3);
  REQUIRE(m.last_plan() != nullptr);
  CHECK(m.num_out_variant_nodes() >= 3);
  CHECK(m.last_plan()->plan.arena_bytes >= m.last_plan()->lower_bound);
}

TEST_CASE("capture: a repeated signature takes zero bytes from the allocator") {
  const MlpShape s;
  const std::vector<Tensor> in = mlp_inputs(s, 8, false);
  StaticModule m(jit::trace(mlp_forward, in));
  const Tensor expected = mlp_forward(in)[0];
  check_planned_runs_allocate_nothing(m, in, expected);
  // An output the caller still holds is not overwritten: the next run allocates a new one.
  CountingAllocator counting;
  const std::vector<Tensor> held = m.run(in);
  const std::vector<Tensor> next = m.run(in);
  CHECK(counting.bytes > 0);
  CHECK_FALSE(next[0].is_same(held[0]));
  CHECK(bitwise_equal(held[0], expected));
}

TEST_CASE("capture: a transformer block's repeated signature takes zero bytes from the allocator") {
  // Its two layer norms run through native_layer_norm.out into the arena, as every other node
  // with an out= variant does.
  const int64_t dim = 32;
  std::vector<Tensor> in = transformer_params(dim, 4 * dim);
  manual_seed(5);
  in.push_back(randn({2, 8, dim}));
  StaticModule m(jit::trace(transformer_block, in));
  check_planned_runs_allocate_nothing(m, in, transformer_block(in)[0]);
}

TEST_CASE("capture: alternating signatures each run their own plan, allocation-free, bit for bit") {
  // Note [Last plan first] in static_module.cpp: the last plan's signature is checked in place
  // first. Inputs of the same sizes but other strides must not take it, and going back to a
  // signature already planned must take that plan (no new plan, no allocation).
  const MlpShape s;
  const std::vector<Tensor> a = mlp_inputs(s, 4, false);
  std::vector<Tensor> b = a;
  b.back() = randn({s.in, 4}).t();  // the same sizes as a's input, transposed strides
  const std::vector<Tensor> c = mlp_inputs(s, 2, false);
  const std::vector<Tensor> expected_a = mlp_forward(a), expected_b = mlp_forward(b), expected_c = mlp_forward(c);
  StaticModule m(jit::trace(mlp_forward, a));
  using Inputs = const std::vector<Tensor>*;
  for (Inputs in : {Inputs{&a}, Inputs{&b}, Inputs{&c}}) {  // profile and plan each, then one planned run
    m.run(*in);
    m.run(*in);
  }
  REQUIRE(m.num_plans() == 3);
  CountingAllocator counting;
  for (Inputs in : {Inputs{&a}, Inputs{&b}, Inputs{&a}, Inputs{&c}, Inputs{&b}, Inputs{&b}, Inputs{&c}, Inputs{&a}}) {
    const std::vector<Tensor> out = m.run(*in);
    check_same(out, in == &a ? expected_a : in == &b ? expected_b : expected_c);
  }
  CHECK(counting.bytes == 0);
  CHECK(m.num_plans() == 3);
  // One input more or less than the plan's signature holds is still a clear error.
  std::vector<Tensor> fewer(a.begin(), a.end() - 1);
  CHECK_THROWS_AS(m.run(fewer), Error);
}

TEST_CASE("capture: a whole training step, backward included, runs statically bit for bit") {
  const MlpShape s;
  const Graph g = jit::trace(mlp_train_step, mlp_inputs(s, 4, true));
  jit::lint_graph(g);
  CHECK(g.outputs().size() == 5);  // loss and four gradients
  // The backward operators are in the graph: relu's derivative and the weight-gradient mms.
  CHECK(count_op(g, "tg::threshold_backward") == 1);
  CHECK(count_op(g, "tg::mm") >= 3);
  StaticModule m(g);
  for (int64_t batch : {4, 16, 4}) {
    CAPTURE(batch);
    const std::vector<Tensor> in = mlp_inputs(s, batch, true);
    const std::vector<Tensor> eager = mlp_train_step(in);
    check_same(m.run(in), eager);
    check_same(m.run(in), eager);
  }
}

TEST_CASE("capture: a transformer block runs statically bit for bit") {
  const int64_t dim = 32;
  std::vector<Tensor> in = transformer_params(dim, 4 * dim);
  manual_seed(3);
  in.push_back(randn({2, 8, dim}));
  const Graph g = jit::trace(transformer_block, in);
  jit::lint_graph(g);
  CHECK(count_op(g, "tg::native_layer_norm") + count_op(g, "tg::layer_norm") == 2);
  StaticModule m(g);
  check_same(m.run(in), transformer_block(in));
  check_same(m.run(in), transformer_block(in));
  in.back() = randn({2, 8, dim});  // new data, same signature: the planned path
  check_same(m.run(in), transformer_block(in));
  CHECK(m.num_plans() == 1);
  // matmul of a 3-d input folds it with view sizes recorded from the example: another batch
  // is a clear error from the view, never a silently wrong result.
  std::vector<Tensor> other = in;
  other.back() = randn({3, 5, dim});
  CHECK_THROWS_AS(m.run(other), Error);
}

TEST_CASE("capture: views, in-place writes and outputs that alias inputs replay like eager") {
  auto fn = [](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor y = in[0] * in[1];    // planned intermediate
    Tensor v = y.view({-1});     // a view of it...
    Tensor z = relu(in[0]);      // ...outlives y's last direct use
    y.mul_(in[1]);               // an in-place write into y, seen through v
    Tensor w = v * 2.0 + z.view({-1});
    in[1].add_(1.0);             // a write into a graph input
    return {w, in[0].t(), in[1]};  // outputs aliasing inputs
  };
  auto make_inputs = [] {
    manual_seed(11);
    return std::vector<Tensor>{randn({3, 4}), randn({3, 4})};
  };
  const Graph g = jit::trace(fn, make_inputs());
  StaticModule m(g);
  for (int rep = 0; rep < 3; ++rep) {
    std::vector<Tensor> a = make_inputs(), b = make_inputs();
    const std::vector<Tensor> eager = fn(a);
    const std::vector<Tensor> stat = m.run(b);
    check_same(stat, eager);
    CHECK(bitwise_equal(a[1], b[1]));                          // the input was written the same way
    CHECK(stat[1].data_ptr() == b[0].data_ptr());              // a view of the input, not a copy
    CHECK(stat[2].unsafeGetTensorImpl() == b[1].unsafeGetTensorImpl());
  }
}

TEST_CASE("capture: liveness keeps a view's base alive and never plans inputs or outputs") {
  auto fn = [](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor y = in[0] * 3.0;  // node: mul.Tensor (the scalar is wrapped) or mul.Scalar
    Tensor v = y.t();        // a view of y
    Tensor a = relu(in[0]);
    Tensor b = relu(a);
    Tensor c = relu(b);      // y is not read directly after the view...
    return {c + v.t()};      // ...but its view is, here
  };
  const Graph g = jit::trace(fn, {randn({4, 4})});
  const auto aliases = jit::analyze_aliases(g);
  int view_value = -1, base = -1;
  for (const auto& node : g.nodes()) {
    // t() is recorded as itself or as what it decomposes into (transpose.int).
    if (node.op == "tg::t" || node.op == "tg::transpose.int") {
      view_value = node.outputs[0];
      base = node.args[0].values[0];
      break;
    }
  }
  REQUIRE(view_value >= 0);
  CHECK(aliases.root_of[static_cast<size_t>(view_value)] == base);
  std::vector<int64_t> bytes(static_cast<size_t>(g.num_values()), 64);
  const auto managed = jit::managed_buffers(g, aliases, bytes);
  const int last_node = static_cast<int>(g.nodes().size()) - 1;
  bool found = false;
  for (const auto& buffer : managed) {
    CHECK(buffer.root != g.inputs()[0]);
    CHECK(buffer.root != g.outputs()[0]);
    if (buffer.root == base) {
      found = true;
      CHECK(buffer.lifetime.last_use == last_node - 0);  // the add reads the re-transposed view
    }
  }
  CHECK(found);
}

TEST_CASE("capture: what a graph cannot hold fails at trace time, naming the operator") {
  const std::vector<Tensor> in = {randn({2, 2})};
  CHECK_THROWS_WITH_AS(jit::trace([](const std::vector<Tensor>& x) -> std::vector<Tensor> {
                         Tensor y = x[0] * 2.0;
                         if (y.sum().item().toDouble() > 0) return {y};
                         return {-y};
                       }, in),
                       doctest::Contains("item()"), Error);
  CHECK_THROWS_WITH_AS(jit::trace([](const std::vector<Tensor>& x) -> std::vector<Tensor> {
                         std::ostringstream out;
                         out << x[0];
                         return {x[0]};
                       }, in),
                       doctest::Contains("printing a tensor"), Error);
  const Tensor outside = randn({2, 2});
  CHECK_THROWS_WITH_AS(jit::trace([&](const std::vector<Tensor>& x) -> std::vector<Tensor> {
                         return {x[0] * outside};
                       }, in),
                       doctest::Contains("tg::mul.Tensor: argument 'other'"), Error);
  CHECK_THROWS_WITH_AS(jit::trace([&](const std::vector<Tensor>&) -> std::vector<Tensor> { return {outside}; }, in),
                       doctest::Contains("output 0"), Error);
  // The tracer leaves nothing behind: eager calls and reads work again.
  CHECK_FALSE(jit::is_tracing());
  CHECK(in[0].sum().item().toDouble() == in[0].sum().item().toDouble());
}

TEST_CASE("capture: StaticModule rejects inputs unlike the graph's") {
  StaticModule m(jit::trace(mlp_forward, mlp_inputs(MlpShape{}, 2, false)));
  std::vector<Tensor> in = mlp_inputs(MlpShape{}, 2, false);
  in.pop_back();
  CHECK_THROWS_WITH_AS(m.run(in), doctest::Contains("expected 5 inputs, got 4"), Error);
  in.push_back(randn({2, 32}).to(TensorOptions().dtype(kDouble)));
  CHECK_THROWS_WITH_AS(m.run(in), doctest::Contains("input 4 ('input4') should be like"), Error);
}

TEST_CASE("capture: a transformer block's training step (loss and every parameter's gradient)") {
  const int64_t dim = 16;
  std::vector<Tensor> in = transformer_params(dim, 2 * dim);
  for (Tensor& p : in) p.requires_grad_(true);
  manual_seed(5);
  in.push_back(randn({2, 4, dim}));
  auto step = [](const std::vector<Tensor>& x) -> std::vector<Tensor> {
    Tensor loss = transformer_block(x)[0].pow(2.0).mean();
    std::vector<Tensor> params(x.begin(), x.begin() + 12);
    std::vector<Tensor> grads = autograd::grad({loss}, params);
    grads.insert(grads.begin(), loss);
    return grads;
  };
  const Graph g = jit::trace(step, in);
  jit::lint_graph(g);
  CHECK(g.outputs().size() == 13);
  CHECK(count_op(g, "tg::native_layer_norm_backward") == 2);
  StaticModule m(g);
  const std::vector<Tensor> eager = step(in);
  check_same(m.run(in), eager);
  check_same(m.run(in), eager);
  CHECK(jit::parse_graph_yaml(g.to_yaml(), "block_step.yaml") == g);
}
