// Autograd on CUDA: gradients equal the CPU's, and the stream contract of the engine
// (Note [Streams in backward] in docs/autograd.md) holds when forward ran on other streams.
#include <doctest/doctest.h>

#include "cuda/cuda_stream.h"
#include "cuda_test_helpers.h"

using cuda_test::check_same;
using cuda_test::on_gpu;
using namespace tg::cuda;

namespace {

// loss = sum(relu(x @ w + b) * x.sum(1, keepdim)) on the device of x.
tg::Tensor loss_of(const tg::Tensor& x, const tg::Tensor& w, const tg::Tensor& b) {
  const tg::Tensor h = tg::relu(tg::addmm(b, x, w));
  return tg::sum(h * tg::sum(x, {{1}}, true) + tg::exp(h).mean());
}

}  // namespace

TEST_CASE("gradients on CUDA equal the CPU's") {
  const tg::Tensor x = cuda_test::sample({8, 5}, tg::kDouble), w = cuda_test::sample({5, 3}, tg::kDouble),
                   b = cuda_test::sample({3}, tg::kDouble);
  tg::Tensor cx = x.clone().requires_grad_(), cw = w.clone().requires_grad_(), cb = b.clone().requires_grad_();
  tg::Tensor gx = on_gpu(x).requires_grad_(), gw = on_gpu(w).requires_grad_(), gb = on_gpu(b).requires_grad_();
  loss_of(cx, cw, cb).backward();
  loss_of(gx, gw, gb).backward();
  check_same(cx.grad(), gx.grad(), "x.grad");
  check_same(cw.grad(), gw.grad(), "w.grad");
  check_same(cb.grad(), gb.grad(), "b.grad");
  CHECK(gx.grad().is_cuda());
}

TEST_CASE("gradients flow across devices through to()") {
  tg::Tensor x = cuda_test::sample({4, 4}, tg::kFloat).requires_grad_();
  tg::Tensor y = (on_gpu(x) * 2.0).sum();
  y.backward();
  REQUIRE(x.grad().defined());
  CHECK(x.grad().is_cpu());
  for (double g : cuda_test::values(x.grad())) CHECK(g == 2.0);
}

TEST_CASE("backward of a forward run on a side stream") {
  const CUDAStream side = getStreamFromPool();
  tg::Tensor x = tg::randn({256, 256}, tg::TensorOptions().device(cuda_test::kGpu)).requires_grad_();
  tg::Tensor loss;
  {
    CUDAStreamGuard guard(side);
    // The leaf was made on the default stream: the side stream must wait for it.
    getDefaultCUDAStream().synchronize();
    loss = tg::sum(tg::mm(x, x) * 0.5);
  }
  // Backward from the default stream: each node runs on its forward's stream (side), and the
  // caller's stream waits for the leaf's gradient before backward returns.
  loss.backward();
  const tg::Tensor expected = (tg::mm(tg::ones({256, 256}, x.options()), x.detach().t()) +
                               tg::mm(x.detach().t(), tg::ones({256, 256}, x.options()))) *
                              0.5;
  check_same(cuda_test::on_cpu(expected), x.grad(), "grad from the side stream", {1e-3, 1e-3});
  CHECK(getCurrentCUDAStream() == getDefaultCUDAStream());
}

TEST_CASE("gradients from two streams accumulate after both are ready") {
  const CUDAStream s1 = getStreamFromPool(), s2 = getStreamFromPool();
  tg::Tensor x = tg::ones({1 << 20}, tg::TensorOptions().device(cuda_test::kGpu)).requires_grad_();
  getDefaultCUDAStream().synchronize();
  tg::Tensor a, b;
  {
    CUDAStreamGuard guard(s1);
    a = (x * 3.0).sum();
  }
  {
    CUDAStreamGuard guard(s2);
    b = (x * 4.0).sum();
  }
  (a + b).backward();
  for (double g : cuda_test::values(x.grad().narrow(0, 0, 1000))) CHECK(g == 7.0);
  // Twice more, with create_graph: the gradient itself is differentiable on CUDA.
  tg::Tensor z = tg::randn({5}, tg::TensorOptions().device(cuda_test::kGpu).dtype(tg::kDouble)).requires_grad_();
  const tg::Tensor g = tg::autograd::grad({(z * z * z).sum()}, {z}, {}, std::nullopt, true)[0];
  const tg::Tensor gg = tg::autograd::grad({g.sum()}, {z})[0];
  check_same(cuda_test::on_cpu(z.detach() * 6.0), gg, "second derivative");
}
