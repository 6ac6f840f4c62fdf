// tg::graphs::Graph on a CUDA device: capture on a side stream into a CUDA graph over a private
// pool of the CUDA caching allocator, replay with cudaGraphLaunch, and CUDA's capture rules.
// The same cases run on a GPU and on the emulated device (runtime/cuda/emulation), where
// stream capture is emulated; the emulation's own counters add checks that only it can make.
// Without a CUDA device of either kind the executable reports a skip (tests/cuda/main.cpp).
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <tensorgen/tensorgen.h>

#include "cuda/cuda_allocator.h"
#include "cuda/cuda_device.h"
#include "cuda/cuda_stream.h"
#include "dispatch/local_dispatch_key_set.h"
#include "graphs/graph.h"
#include "graphs/graphed_callable.h"
#include "jit/tracer.h"
#include "test_helpers.h"

#if defined(TG_CUDA_EMULATION)
#include "cuda/emulation/cublas_shim.h"
#endif

using test_helpers::contains;
using test_helpers::thrown;

namespace {

const tg::Device kGpu(tg::kCUDA, 0);

tg::Tensor gpu_randn(std::vector<int64_t> sizes) { return tg::randn(sizes).to(kGpu); }

float max_diff(const tg::Tensor& a, const tg::Tensor& b) {
  return (a.to(tg::Device(tg::kCPU)) - b.to(tg::Device(tg::kCPU))).abs().max().item<float>();
}

// A small MLP: two cuBLAS matmuls, pointwise operators and a reduction.
tg::Tensor mlp(const tg::Tensor& x, const tg::Tensor& w1, const tg::Tensor& b1, const tg::Tensor& w2) {
  tg::Tensor h = tg::relu(tg::matmul(x, w1) + b1);
  h = h * 2.0 - 1.0;
  return tg::tanh(tg::matmul(h, w2)).sum(1);
}

// Counts the operator calls that reach the dispatcher's Tracer key on this thread (every call
// below autograd), as the graphs interceptor sees them.
class DispatchCounter {
 public:
  DispatchCounter() {
    calls_ = 0;
    previous_ = tg::jit::set_call_interceptor(&count);
    tg::LocalDispatchKeySet& keys = tg::local_dispatch_key_set();
    keys.included = keys.included.add(tg::DispatchKey::Tracer);
  }
  ~DispatchCounter() {
    tg::LocalDispatchKeySet& keys = tg::local_dispatch_key_set();
    keys.included = keys.included.remove(tg::DispatchKey::Tracer);
    tg::jit::set_call_interceptor(previous_);
  }
  DispatchCounter(const DispatchCounter&) = delete;
  DispatchCounter& operator=(const DispatchCounter&) = delete;
  int calls() const { return calls_; }

 private:
  static void count(const tg::OperatorHandle& op, tg::DispatchKeySet below, tg::Stack* stack) {
    ++calls_;
    tg::ExcludeDispatchKeyGuard no_interception(tg::DispatchKey::Tracer);
    op.redispatchBoxed(below, stack);
  }
  static inline thread_local int calls_ = 0;
  tg::jit::CallInterceptor previous_;
};

// Whether `ptr` is an allocated block of `pool` on device 0.
bool in_pool(const tg::graphs::MemPool& pool, const void* ptr) {
  const tg::alloc::PoolState state = tg::cuda::caching_allocator().checkpoint_pool(0, pool.id());
  for (const auto& segment : state.segments) {
    for (const auto& block : segment.blocks) {
      if (block.allocated && block.address == reinterpret_cast<uintptr_t>(ptr)) return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("CUDA Graph: replay equals eager for new input data, without dispatch") {
  tg::cuda::CUDAStreamGuard side(tg::cuda::getStreamFromPool());
  tg::manual_seed(0);
  tg::Tensor x = gpu_randn({8, 16}), w1 = gpu_randn({16, 32}), b1 = gpu_randn({32}), w2 = gpu_randn({32, 4});
  mlp(x, w1, b1, w2);  // warm-up on the capture stream: the cuBLAS handle is made outside the capture

  tg::graphs::Graph graph(kGpu);
#if defined(TG_CUDA_EMULATION)
  const int64_t launches_before = tg::cuda::emu::launch_count(0);
  const long long gemms_before = tg::cuda::emu::cublas_gemm_count();
#endif
  graph.capture_begin();
  tg::Tensor out = mlp(x, w1, b1, w2);
  graph.capture_end();
#if defined(TG_CUDA_EMULATION)
  // Recorded, not run: no kernel and no GEMM ran during the capture.
  CHECK(tg::cuda::emu::launch_count(0) == launches_before);
  CHECK(tg::cuda::emu::cublas_gemm_count() == gemms_before);
#endif
  CHECK(graph.num_nodes() >= 6);
  CHECK(graph.device() == kGpu);

  for (int step = 0; step < 3; ++step) {
    x.copy_(tg::randn({8, 16}));
    w1.mul_(0.9);
    void* address = out.data_ptr();
#if defined(TG_CUDA_EMULATION)
    const int64_t launches = tg::cuda::emu::launch_count(0);
    const long long gemms = tg::cuda::emu::cublas_gemm_count();
#endif
    int dispatched = 0;
    {
      DispatchCounter counter;
      graph.replay();
      dispatched = counter.calls();
    }
    CHECK(dispatched == 0);  // cudaGraphLaunch only: no operator is dispatched again
#if defined(TG_CUDA_EMULATION)
    CHECK(tg::cuda::emu::cublas_gemm_count() == gemms + 2);  // both matmuls replayed through the shim
    CHECK(tg::cuda::emu::launch_count(0) > launches);
#endif
    CHECK(out.data_ptr() == address);
    CHECK(max_diff(out, mlp(x, w1, b1, w2)) < 1e-4f);
  }
  {
    DispatchCounter counter;  // the counter sees eager calls: the zero above means something
    mlp(x, w1, b1, w2);
    CHECK(counter.calls() >= 6);
  }
}

TEST_CASE("CUDA Graph: temporaries come from the private pool and are reused within it") {
  tg::cuda::CUDAStreamGuard side(tg::cuda::getStreamFromPool());
  tg::Tensor x = gpu_randn({128, 128});  // 64 KiB per temporary
  auto run = [&] {
    tg::Tensor y = x;
    for (int i = 0; i < 20; ++i) y = (y * 0.5).relu();
    return y;
  };
  run();
  tg::graphs::Graph graph(kGpu);
  graph.capture_begin();
  tg::Tensor y = run();
  graph.capture_end();
  CHECK(in_pool(graph.pool(), y.data_ptr()));
  CHECK_FALSE(in_pool(graph.pool(), x.data_ptr()));
  // 40 temporaries of 64 KiB would need two 2 MiB segments; reuse keeps them in one.
  CHECK(graph.pool().reserved_bytes() > 0);
  CHECK(graph.pool().reserved_bytes() <= (size_t{2} << 20));
  x.copy_(tg::randn({128, 128}));
  graph.replay();
  CHECK(max_diff(y, run()) < 1e-5f);
}

TEST_CASE("CUDA Graph: two graphs share one pool, and replay in capture order") {
  tg::cuda::CUDAStreamGuard side(tg::cuda::getStreamFromPool());
  tg::Tensor x = gpu_randn({64, 64});
  (x * 3.0).exp().log() + 1.0;  // warm-up
  tg::graphs::Graph first(kGpu), second(kGpu);
  first.capture_begin();
  tg::Tensor a = (x * 3.0).exp();
  first.capture_end();
  second.capture_begin(first.pool());
  tg::Tensor c = a.log() + 1.0;  // reads first's output in place
  second.capture_end();
  CHECK(first.pool() == second.pool());
  CHECK(in_pool(first.pool(), a.data_ptr()));
  CHECK(in_pool(first.pool(), c.data_ptr()));
  x.copy_(tg::randn({64, 64}));
  first.replay();
  second.replay();
  CHECK(max_diff(c, x * 3.0 + 1.0) < 1e-4f);
}

TEST_CASE("CUDA Graph: a forward and backward step captured together replays the gradients") {
  tg::cuda::CUDAStreamGuard side(tg::cuda::getStreamFromPool());
  tg::manual_seed(1);
  tg::Tensor w = gpu_randn({16, 4}).requires_grad_();
  tg::Tensor x = gpu_randn({8, 16});
  auto step = [&] {
    tg::Tensor loss = tg::relu(tg::matmul(x, w)).pow(2).sum();
    loss.backward();
    return loss;
  };
  step();  // warm-up
  w.mutable_grad() = tg::Tensor();
  tg::graphs::Graph graph(kGpu);
  graph.capture_begin();
  tg::Tensor loss = step();
  graph.capture_end();
  tg::Tensor grad = w.grad();
  REQUIRE(grad.defined());
  CHECK(in_pool(graph.pool(), grad.data_ptr()));

  for (int i = 0; i < 2; ++i) {
    x.copy_(tg::randn({8, 16}));
    graph.replay();
    tg::Tensor w2 = w.detach().clone().requires_grad_();
    tg::Tensor eager = tg::relu(tg::matmul(x, w2)).pow(2).sum();
    eager.backward();
    CHECK(max_diff(loss, eager.detach()) < 1e-3f);
    CHECK(max_diff(grad, w2.grad()) < 1e-3f);
  }
}

TEST_CASE("CUDA Graph: operations CUDA forbids during capture raise clear errors") {
  tg::cuda::CUDAStreamGuard side(tg::cuda::getStreamFromPool());
  tg::Tensor x = gpu_randn({4, 4});
  (x * 2.0).sum();
  const std::string forbidden = "operation not permitted when stream is capturing";
  const std::string invalidated = "[Graph::capture_end] CUDA invalidated the capture";

  SUBCASE("reading a value (item) copies to the host and synchronises") {
    tg::graphs::Graph graph(kGpu);
    graph.capture_begin();
    CHECK(contains(thrown<tg::Error>([&] { (x * 2.0).sum().item<float>(); }), forbidden));
    CHECK(contains(thrown<tg::Error>([&] { graph.capture_end(); }), invalidated));
  }
  SUBCASE("synchronising the capturing stream") {
    tg::graphs::Graph graph(kGpu);
    graph.capture_begin();
    tg::Tensor y = x * 2.0;
    CHECK(contains(thrown<tg::Error>([&] { tg::cuda::getCurrentCUDAStream().synchronize(); }), forbidden));
    // Later work on the invalidated capture fails too, as CUDA's does.
    CHECK(contains(thrown<tg::Error>([&] { (void)(y + 1.0); }), "cudaErrorStreamCaptureInvalidated"));
    CHECK(contains(thrown<tg::Error>([&] { graph.capture_end(); }), invalidated));
  }
  SUBCASE("synchronising the device") {
    tg::graphs::Graph graph(kGpu);
    graph.capture_begin();
    CHECK(contains(thrown<tg::Error>([&] { tg::cuda::synchronize(); }), forbidden));
    CHECK(contains(thrown<tg::Error>([&] { graph.capture_end(); }), invalidated));
  }
  SUBCASE("a raw cudaMalloc; the allocator's own cudaMalloc runs in relaxed mode and is allowed") {
    tg::graphs::Graph graph(kGpu);
    graph.capture_begin();
    tg::Tensor y = x * 3.0;  // the pool's first segment, cudaMalloc'd during the capture
    CHECK(in_pool(graph.pool(), y.data_ptr()));
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    REQUIRE(cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess);
    void* relaxed = nullptr;
    CHECK(cudaMalloc(&relaxed, 1024) == cudaSuccess);  // relaxed: allowed, the capture stays valid
    REQUIRE(cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess);
    void* raw = nullptr;
    CHECK(cudaMalloc(&raw, 1024) == cudaErrorStreamCaptureUnsupported);
    (void)cudaGetLastError();
    CHECK(contains(thrown<tg::Error>([&] { graph.capture_end(); }), invalidated));
    CHECK(cudaFree(relaxed) == cudaSuccess);
  }
  SUBCASE("capturing the default stream, and misuse") {
    tg::cuda::CUDAStreamGuard default_stream(tg::cuda::getDefaultCUDAStream());
    tg::graphs::Graph graph(kGpu);
    CHECK(contains(thrown<tg::Error>([&] { graph.capture_begin(); }), "default stream, which CUDA cannot capture"));
    CHECK(contains(thrown<tg::Error>([&] { graph.replay(); }), "[Graph::replay] nothing was captured"));
    CHECK(contains(thrown<tg::Error>([&] { graph.capture_begin(tg::graphs::MemPool()); }),
                   "the pool is on cpu but this graph captures work on cuda:0"));
  }
  // After all of that the stream works normally again.
  CHECK(max_diff((x * 2.0).sum(), (x.to(tg::Device(tg::kCPU)) * 2.0).sum()) < 1e-5f);
}

TEST_CASE("make_graphed_callables on CUDA: forward and backward replay CUDA graphs; gradients equal eager") {
  tg::manual_seed(2);
  auto net = [](const std::vector<tg::Tensor>& in) {  // x, w1, w2
    return std::vector<tg::Tensor>{tg::matmul(tg::relu(tg::matmul(in[0], in[1])), in[2]).tanh()};
  };
  tg::Tensor w1 = gpu_randn({16, 32}).requires_grad_();
  tg::Tensor w2 = gpu_randn({32, 8}).requires_grad_();
  auto graphed = tg::graphs::make_graphed_callables(net, {gpu_randn({4, 16}), w1, w2});
  for (int step = 0; step < 3; ++step) {
    tg::Tensor x = gpu_randn({4, 16});
    tg::Tensor y = graphed({x, w1, w2})[0];
    y.pow(2).sum().backward();
    tg::Tensor g1 = w1.grad().clone(), g2 = w2.grad().clone();
    w1.mutable_grad() = tg::Tensor();
    w2.mutable_grad() = tg::Tensor();
    tg::Tensor e1 = w1.detach().clone().requires_grad_(), e2 = w2.detach().clone().requires_grad_();
    tg::Tensor eager = net({x, e1, e2})[0];
    eager.pow(2).sum().backward();
    CHECK(max_diff(y, eager.detach()) < 1e-4f);
    CHECK(max_diff(g1, e1.grad()) < 1e-3f);
    CHECK(max_diff(g2, e2.grad()) < 1e-3f);
  }
  CHECK(contains(thrown<tg::Error>([&] { tg::graphs::make_graphed_callables(net, {gpu_randn({4, 16}), tg::randn({16, 32})}); }),
                 "sample input 1 is on cpu but sample input 0 on cuda:0"));
}
