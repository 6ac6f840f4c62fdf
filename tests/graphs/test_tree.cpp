// Graph trees on the CPU: replay equals eager, a forward/backward pair shares memory, two
// branches from one prefix take max(path) pool bytes, overwritten outputs refuse to be read
// (directly, through .detach() and through views), and the re-record bound with LRU eviction.
#include <doctest/doctest.h>

#include <sstream>

#include <tensorgen/tensorgen.h>

#include "alloc/size_classes.h"
#include "graphs/graph.h"
#include "graphs/tree.h"
#include "test_helpers.h"

using test_helpers::contains;
using test_helpers::thrown;
using tg::Tensor;
using Tensors = std::vector<tg::Tensor>;

namespace {

float max_diff(const Tensor& a, const Tensor& b) { return (a - b).abs().max().item<float>(); }

Tensors mlp(const Tensors& in) {  // x, w1, w2
  Tensor h = tg::relu(tg::matmul(in[0], in[1]));
  return {tg::matmul(h, in[2]).tanh()};
}

}  // namespace

TEST_CASE("tree: replays equal eager results for new input data; parameters are read in place") {
  tg::manual_seed(0);
  Tensor w1 = tg::randn({16, 32}), w2 = tg::randn({32, 8});
  tg::graphs::Tree tree;
  auto f = tree.wrap(mlp, {1, 2}, "mlp");
  for (int step = 0; step < 4; ++step) {
    Tensor x = tg::randn({4, 16});
    Tensor y = f({x, w1, w2})[0];
    CHECK(max_diff(y, mlp({x, w1, w2})[0]) < 1e-6f);
    w1.mul_(0.5);  // a parameter updated in place is seen by the next replay
  }
  const tg::graphs::TreeStats stats = tree.stats();
  CHECK(stats.recordings == 1);
  CHECK(stats.replays == 3);
  CHECK(stats.generations == 4);
  // A new batch size is a new recording.
  Tensor x8 = tg::randn({8, 16});
  CHECK(max_diff(f({x8, w1, w2})[0], mlp({x8, w1, w2})[0]) < 1e-6f);
  CHECK(tree.stats().recordings == 2);
}

TEST_CASE("tree: backward reads forward's saved tensors in place, from the same pool") {
  tg::manual_seed(1);
  Tensor w = tg::randn({16, 8});
  tg::graphs::Tree tree;
  const void* h_seen_by_backward = nullptr;
  auto forward = tree.wrap([](const Tensors& in) {
    Tensor h = tg::relu(tg::matmul(in[0], in[1]));
    return Tensors{h.sum(), h};  // loss, and h saved for backward
  }, {1}, "forward");
  auto backward = tree.wrap([&](const Tensors& in) {  // h, x: d(sum relu(x w))/dw = x^T (h > 0)
    h_seen_by_backward = in[0].data_ptr();
    return Tensors{tg::matmul(in[1].t(), (in[0] > 0).to(tg::kFloat))};
  }, {}, "backward");
  for (int step = 0; step < 3; ++step) {
    Tensor x = tg::randn({4, 16});
    Tensors fw = forward({x, w});
    Tensors grads = backward({fw[1], x});
    CHECK(h_seen_by_backward == fw[1].data_ptr());  // no copy of h
    Tensor w_eager = w.clone().requires_grad_();
    tg::relu(tg::matmul(x, w_eager)).sum().backward();
    CHECK(max_diff(grads[0], w_eager.grad()) < 1e-5f);
  }
  CHECK(tree.stats().recordings == 2);
  CHECK(tree.stats().replays == 4);
}

TEST_CASE("tree: two branches from one prefix take the pool bytes of the larger path") {
  const int64_t n = 3 << 20;  // 12 MiB of floats: one segment per tensor
  tg::graphs::TreeFunction prefix = [](const Tensors& in) { return Tensors{in[0] * 2.0}; };
  tg::graphs::TreeFunction branch_a = [](const Tensors& in) { return Tensors{(in[0] + 1.0).exp()}; };
  tg::graphs::TreeFunction branch_b = [](const Tensors& in) { return Tensors{(in[0] - 1.0).tanh() * 3.0}; };
  Tensor x = tg::randn({n});

  tg::graphs::Tree tree;
  auto p = tree.wrap(prefix, {}, "prefix");
  auto a = tree.wrap(branch_a, {}, "a");
  auto b = tree.wrap(branch_b, {}, "b");
  Tensor ya = a(p({x}))[0];
  CHECK(max_diff(ya, branch_a(prefix({x}))[0]) == 0.0f);
  const size_t after_a = tree.pool().reserved_bytes();
  Tensor yb = b(p({x}))[0];  // a new generation: p replays, b is its second child
  CHECK(max_diff(yb, branch_b(prefix({x}))[0]) == 0.0f);
  Tensor ya2 = a(p({x}))[0];
  CHECK(max_diff(ya2, branch_a(prefix({x}))[0]) == 0.0f);
  CHECK(tree.stats().recordings == 3);

  // The same three functions as separate graphs, each in its own pool.
  size_t separate = 0;
  for (const tg::graphs::TreeFunction& fn : {prefix, branch_a, branch_b}) {
    Tensor in = x.clone();
    fn({in});
    tg::graphs::Graph g;
    g.capture_begin();
    fn({in});
    g.capture_end();
    separate += g.pool().reserved_bytes();
  }
  const size_t tree_bytes = tree.pool().reserved_bytes();
  MESSAGE("tree pool ", tree_bytes, " bytes, separate graphs ", separate, " bytes");
  const size_t tensor_bytes = static_cast<size_t>(n) * 4;
  // Branch b reused the two segments of branch a (x+1 and its exp), which are off its path,
  // and added one: its three tensors (x-1, its tanh, the output) live at once.
  CHECK(tree_bytes - after_a <= tensor_bytes);
  // The larger path, prefix → b: x's slot, 2x (read in place by b), b's three tensors, and one
  // small segment (scalars): 5 tensors; never the sum over both branches.
  CHECK(tree_bytes <= 5 * tensor_bytes + tg::alloc::kSmallSegment);
  CHECK(tree_bytes < separate);
}

TEST_CASE("tree: an output overwritten by a later replay refuses every access") {
  Tensor w1 = tg::randn({16, 32}), w2 = tg::randn({32, 8});
  auto f = tg::graphs::tree(mlp, {1, 2});
  Tensor first = f({tg::randn({4, 16}), w1, w2})[0];
  Tensor first_detached = first.detach();     // made before the overwrite
  Tensor first_view = first.slice(0, 0, 2);   // likewise
  Tensor kept = f({tg::randn({4, 16}), w1, w2})[0].clone();
  Tensor second = f({tg::randn({4, 16}), w1, w2})[0];  // overwrites the memory of the earlier outputs
  for (const Tensor* t : {&first, &first_detached, &first_view}) {
    const std::string message = thrown<tg::Error>([&] { (void)(*t + 1.0); });
    CHECK(contains(message, "was overwritten by a replay of recording #1 of function 'function 0'"));
    CHECK(contains(message, "clone() an output to keep it"));
    CHECK(contains(thrown<tg::Error>([&] { (void)t->sum().item<float>(); }), "overwritten"));
    CHECK(contains(thrown<tg::Error>([&] { (void)t->detach().sum(); }), "overwritten"));
    CHECK(contains(thrown<tg::Error>([&] { (void)t->view({-1}); }), "overwritten"));
    CHECK(contains(thrown<tg::Error>([&] { (void)t->item<float>(); }), "overwritten"));
    CHECK(contains(thrown<tg::Error>([&] {
                     std::ostringstream out;
                     out << *t;
                   }),
                   "[printing a tensor] this tensor is an output of recording #1"));
    CHECK(contains(thrown<tg::Error>([&] { f({*t, w1, w2}); }), "overwritten"));
  }
  CHECK(kept.sum().item<float>() == kept.sum().item<float>());  // a clone stays readable
  CHECK(second.abs().sum().item<float>() >= 0.0f);              // the latest output too
}

TEST_CASE("tree: re-recording is bounded: eager with one warning after K; LRU eviction") {
  Tensor w1 = tg::randn({16, 32}), w2 = tg::randn({32, 8});
  std::vector<std::string> warnings;
  tg::graphs::TreeOptions options;
  options.max_recordings_per_function = 3;
  options.max_live_recordings = 2;
  options.warn = [&](const std::string& w) { warnings.push_back(w); };
  tg::graphs::Tree tree(options);
  auto f = tree.wrap(mlp, {1, 2}, "mlp");
  Tensor out1 = f({tg::randn({1, 16}), w1, w2})[0];
  f({tg::randn({2, 16}), w1, w2});
  f({tg::randn({3, 16}), w1, w2});  // a third shape: the least recently used (batch 1) is evicted
  CHECK(tree.stats().evictions == 1);
  CHECK(tree.stats().live_recordings == 2);
  // Recording batch 2 reused the memory of batch 1's outputs (another root of the tree).
  CHECK(contains(thrown<tg::Error>([&] { (void)(out1 * 2.0); }), "overwritten by recording #2 of function 'mlp' (being recorded)"));
  for (int batch = 4; batch <= 6; ++batch) {  // more new shapes: eager now
    Tensor x = tg::randn({batch, 16});
    CHECK(max_diff(f({x, w1, w2})[0], mlp({x, w1, w2})[0]) == 0.0f);
  }
  CHECK(tree.stats().recordings == 3);
  CHECK(tree.stats().eager_calls == 3);
  REQUIRE(warnings.size() == 1);
  CHECK(contains(warnings[0], "'mlp' was recorded 3 times"));
  Tensor x3 = tg::randn({3, 16});  // a kept recording still replays
  CHECK(max_diff(f({x3, w1, w2})[0], mlp({x3, w1, w2})[0]) < 1e-6f);
  CHECK(tree.stats().replays == 1);
}

TEST_CASE("tree: recorded outputs and input slots stay allocated in the pool; later recordings never reuse them") {
  tg::graphs::Tree tree;
  auto twice = tree.wrap([](const Tensors& in) { return Tensors{in[0] * 2.0}; }, {}, "twice");
  auto plus_one = tree.wrap([](const Tensors& in) { return Tensors{in[0] + 1.0}; }, {}, "plus_one");
  Tensor x = tg::randn({1024});
  Tensor y = twice({x})[0];
  Tensor z = plus_one({y})[0];  // y is read in place: same path, so y must survive z's recording
  CHECK(z.data_ptr() != y.data_ptr());
  CHECK(max_diff(y, x * 2.0) == 0.0f);
  CHECK(max_diff(z, x * 2.0 + 1.0) == 0.0f);
  const tg::alloc::PoolState state = tg::graphs::cpu_graph_allocator().checkpoint_pool(0, tree.pool().id());
  size_t live = 0;
  for (const auto& segment : state.segments) {
    for (const auto& block : segment.blocks) live += block.allocated ? 1 : 0;
  }
  CHECK(live == 3);  // x's slot, y, z: owned by the pool's checkpoints, not freed when disowned
}
