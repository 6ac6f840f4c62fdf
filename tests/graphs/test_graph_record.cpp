// tg::graphs::Graph on the CPU: capture a region, replay it without dispatch into the same
// memory, share a pool between graphs, record forward + backward, and the errors of capture.
#include <doctest/doctest.h>

#include <tensorgen/tensorgen.h>

#include "graphs/graph.h"
#include "graphs/graphed_callable.h"
#include "test_helpers.h"

using test_helpers::contains;
using test_helpers::thrown;

namespace {

float max_diff(const tg::Tensor& a, const tg::Tensor& b) { return (a - b).abs().max().item<float>(); }

tg::Tensor chain(const tg::Tensor& x, const tg::Tensor& w, const tg::Tensor& b) {
  tg::Tensor h = tg::relu(tg::matmul(x, w) + b);
  h = h * 2.0 - 1.0;
  return tg::softmax(h.t().contiguous(), 1).sum(0);
}

}  // namespace

TEST_CASE("Graph: replay recomputes the captured region for new input data, as eager does") {
  tg::manual_seed(0);
  tg::Tensor x = tg::randn({8, 16});
  tg::Tensor w = tg::randn({16, 32});
  tg::Tensor b = tg::randn({32});
  chain(x, w, b);  // warm-up: nothing lazy lands in the graph

  tg::graphs::Graph graph;
  graph.capture_begin();
  tg::Tensor out = chain(x, w, b);
  graph.capture_end();
  CHECK(graph.num_nodes() >= 6);
  CHECK(max_diff(out, chain(x, w, b)) == 0.0f);

  for (int step = 0; step < 3; ++step) {
    x.copy_(tg::randn({8, 16}));
    w.mul_(0.9);
    void* address = out.data_ptr();
    graph.replay();
    CHECK(out.data_ptr() == address);  // the output lives where the capture put it
    CHECK(max_diff(out, chain(x, w, b)) < 1e-6f);
  }
}

TEST_CASE("Graph: temporaries are freed into the pool during capture and reused, not kept") {
  tg::Tensor x = tg::randn({256, 256});  // 256 KiB per temporary
  auto run = [&] {
    tg::Tensor y = x;
    for (int i = 0; i < 40; ++i) y = (y * 0.5).relu();
    return y;
  };
  run();
  tg::graphs::Graph graph;
  graph.capture_begin();
  tg::Tensor y = run();
  graph.capture_end();
  // 80 temporaries of 256 KiB would need 20 MiB; reuse keeps them in a few 2 MiB segments.
  CHECK(graph.pool().reserved_bytes() <= (size_t{4} << 20));
  x.copy_(tg::randn({256, 256}));
  graph.replay();
  CHECK(max_diff(y, run()) < 1e-6f);
}

TEST_CASE("Graph: two graphs share one pool, and replay in capture order") {
  tg::Tensor x = tg::randn({64, 64});
  tg::graphs::Graph first, second;
  first.capture_begin();
  tg::Tensor a = (x * 3.0).exp();
  first.capture_end();
  second.capture_begin(first.pool());
  tg::Tensor c = a.log() + 1.0;  // reads first's output in place
  second.capture_end();
  CHECK(first.pool() == second.pool());
  x.copy_(tg::randn({64, 64}));
  first.replay();
  second.replay();
  CHECK(max_diff(c, x * 3.0 + 1.0) < 1e-4f);
}

TEST_CASE("Graph: forward and backward captured together replay the gradients") {
  tg::manual_seed(1);
  tg::Tensor w = tg::randn({16, 4}).requires_grad_();
  tg::Tensor x = tg::randn({8, 16});
  auto step = [&] {
    tg::Tensor loss = tg::relu(tg::matmul(x, w)).pow(2).sum();
    loss.backward();
    return loss;
  };
  step();  // warm-up
  w.mutable_grad() = tg::Tensor();
  tg::graphs::Graph graph;
  graph.capture_begin();
  tg::Tensor loss = step();
  graph.capture_end();
  tg::Tensor grad = w.grad();
  REQUIRE(grad.defined());

  x.copy_(tg::randn({8, 16}));
  graph.replay();
  tg::Tensor w2 = w.detach().clone().requires_grad_();
  tg::Tensor eager = tg::relu(tg::matmul(x, w2)).pow(2).sum();
  eager.backward();
  CHECK(max_diff(loss, eager.detach()) < 1e-4f);
  CHECK(max_diff(grad, w2.grad()) < 1e-4f);
}

TEST_CASE("Graph: misuse and unrecordable operators raise clear errors") {
  tg::graphs::Graph graph;
  CHECK(contains(thrown<tg::Error>([&] { graph.replay(); }), "[Graph::replay] nothing was captured"));
  CHECK(contains(thrown<tg::Error>([&] { graph.capture_end(); }), "capture_begin was not called"));
  tg::Tensor x = tg::randn({4});
  graph.capture_begin();
  tg::graphs::Graph other;
  CHECK(contains(thrown<tg::Error>([&] { other.capture_begin(); }), "already capturing"));
  CHECK(contains(thrown<tg::Error>([&] { (x * 2.0).sum().item<float>(); }), "reads tensor data (item())"));
  graph.capture_end();
  CHECK(contains(thrown<tg::Error>([&] { graph.capture_begin(); }), "already holds a capture"));
}

TEST_CASE("make_graphed_callables: forward and backward replay their graphs; gradients equal eager") {
  tg::manual_seed(2);
  auto mlp = [](const std::vector<tg::Tensor>& in) {  // x, w1, w2
    return std::vector<tg::Tensor>{tg::matmul(tg::relu(tg::matmul(in[0], in[1])), in[2]).tanh()};
  };
  tg::Tensor w1 = tg::randn({16, 32}).requires_grad_();
  tg::Tensor w2 = tg::randn({32, 8}).requires_grad_();
  auto graphed = tg::graphs::make_graphed_callables(mlp, {tg::randn({4, 16}), w1, w2});
  for (int step = 0; step < 3; ++step) {
    tg::Tensor x = tg::randn({4, 16});
    tg::Tensor y = graphed({x, w1, w2})[0];
    y.pow(2).sum().backward();
    tg::Tensor g1 = w1.grad().clone(), g2 = w2.grad().clone();
    w1.mutable_grad() = tg::Tensor();
    w2.mutable_grad() = tg::Tensor();
    tg::Tensor e1 = w1.detach().clone().requires_grad_(), e2 = w2.detach().clone().requires_grad_();
    tg::Tensor eager = mlp({x, e1, e2})[0];
    eager.pow(2).sum().backward();
    CHECK(max_diff(y, eager.detach()) < 1e-5f);
    CHECK(max_diff(g1, e1.grad()) < 1e-4f);
    CHECK(max_diff(g2, e2.grad()) < 1e-4f);
  }
  CHECK(contains(thrown<tg::Error>([&] { graphed({tg::randn({5, 16}), w1, w2}); }),
                 "input 0 has dtype float32 and sizes [5, 16]; the graphs were recorded for float32 [4, 16]"));
}
