// Autograd overhead: the cost of recording one operation, and of backward per node, each
// beside the same work without autograd.
//   op_add_1elem_ns        tg::add on 1-element tensors, no grad
//   op_add_1elem_grad_ns   the same with an input that requires grad (records AddBackward0)
//   chain100_forward_us    100 mul+add steps on 1 element, no grad
//   chain100_forward_grad_us  the same, recording the graph
//   chain100_backward_us   backward over that graph (200 nodes)
//   backward_per_node_ns   chain100_backward_us / 200
#include <tensorgen/tensorgen.h>

#include "bench_util.h"

int main() {
  tg::Tensor a = tg::ones({1});
  tg::Tensor b = tg::ones({1});
  tg::Tensor w = tg::ones({1}).requires_grad_();

  double plain = bench::best_ns_per_call(200'000, 7, [&] { bench::do_not_optimize(tg::add(a, b)); });
  bench::report("op_add_1elem_ns", plain, "ns");
  double recorded = bench::best_ns_per_call(200'000, 7, [&] { bench::do_not_optimize(tg::add(w, b)); });
  bench::report("op_add_1elem_grad_ns", recorded, "ns");
  bench::report("op_record_overhead_ns", recorded - plain, "ns");

  constexpr int kSteps = 100;
  tg::Tensor c = tg::full({1}, 1.0001);
  auto chain = [&](const tg::Tensor& start) {
    tg::Tensor x = start;
    for (int i = 0; i < kSteps; ++i) x = tg::add(tg::mul(x, c), c);
    return x;
  };
  double forward_plain = bench::best_ns_per_call(2'000, 7, [&] { bench::do_not_optimize(chain(a)); }) / 1000;
  bench::report("chain100_forward_us", forward_plain, "us");
  double forward_grad = bench::best_ns_per_call(2'000, 7, [&] { bench::do_not_optimize(chain(w)); }) / 1000;
  bench::report("chain100_forward_grad_us", forward_grad, "us");

  double best_backward = 1e300;
  for (int r = 0; r < 7; ++r) {
    std::vector<tg::Tensor> roots;
    for (int i = 0; i < 200; ++i) roots.push_back(chain(w).sum());
    auto start = std::chrono::steady_clock::now();
    for (const tg::Tensor& root : roots) root.backward();
    auto stop = std::chrono::steady_clock::now();
    best_backward = std::min(best_backward, std::chrono::duration<double, std::micro>(stop - start).count() / 200);
  }
  bench::report("chain100_backward_us", best_backward, "us");
  bench::report("backward_per_node_ns", best_backward * 1000 / (2 * kSteps + 1), "ns");
  return 0;
}
