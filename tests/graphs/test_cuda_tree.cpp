// Graph trees on a CUDA device (tree.cpp, Note [Graph trees on CUDA]): the scenarios of
// test_tree.cpp over CUDA Graphs in one private pool of the CUDA caching allocator. Replay
// equals eager, a forward/backward pair shares memory, two branches from one prefix take
// max(path) pool bytes (from the CUDA caching allocator's pool statistics), overwritten
// outputs refuse every access, the re-record bound with LRU eviction, and device errors.
// Built into graphs_cuda: it runs on a GPU and on the emulated device, and reports a skip
// without either (tests/cuda/main.cpp).
#include <doctest/doctest.h>

#include <sstream>

#include <tensorgen/tensorgen.h>

#include "alloc/size_classes.h"
#include "cuda/cuda_allocator.h"
#include "cuda/cuda_stream.h"
#include "graphs/graph.h"
#include "graphs/tree.h"
#include "test_helpers.h"

#if defined(TG_CUDA_EMULATION)
#include "cuda/emulation/cublas_shim.h"
#endif

using test_helpers::contains;
using test_helpers::thrown;
using tg::Tensor;
using Tensors = std::vector<tg::Tensor>;

namespace {

const tg::Device kGpu(tg::kCUDA, 0);

Tensor gpu_randn(std::vector<int64_t> sizes) { return tg::randn(sizes).to(kGpu); }

float max_diff(const Tensor& a, const Tensor& b) {
  return (a.to(tg::Device(tg::kCPU)) - b.to(tg::Device(tg::kCPU))).abs().max().item<float>();
}

Tensors mlp(const Tensors& in) {  // x, w1, w2
  Tensor h = tg::relu(tg::matmul(in[0], in[1]));
  return {tg::matmul(h, in[2]).tanh()};
}

size_t pool_bytes(const tg::graphs::MemPool& pool) {
  return tg::cuda::caching_allocator().pool_reserved_bytes(0, pool.id());
}

}  // namespace

TEST_CASE("CUDA tree: replays equal eager results for new input data; parameters are read in place") {
  tg::manual_seed(0);
  Tensor w1 = gpu_randn({16, 32}), w2 = gpu_randn({32, 8});
  tg::graphs::Tree tree;
  auto f = tree.wrap(mlp, {1, 2}, "mlp");
  for (int step = 0; step < 4; ++step) {
    Tensor x = gpu_randn({4, 16});
#if defined(TG_CUDA_EMULATION)
    const long long gemms = tg::cuda::emu::cublas_gemm_count();
#endif
    Tensor y = f({x, w1, w2})[0];
#if defined(TG_CUDA_EMULATION)
    // Recording: warm-up (2) and the first run of the graph (2); replay: the graph's 2.
    CHECK(tg::cuda::emu::cublas_gemm_count() - gemms == (step == 0 ? 4 : 2));
#endif
    CHECK(y.device() == kGpu);
    CHECK(max_diff(y, mlp({x, w1, w2})[0]) < 1e-5f);
    w1.mul_(0.5);  // a parameter updated in place is seen by the next replay
  }
  const tg::graphs::TreeStats stats = tree.stats();
  CHECK(stats.recordings == 1);
  CHECK(stats.replays == 3);
  CHECK(stats.generations == 4);
  CHECK(tree.pool().device() == kGpu);
  CHECK(pool_bytes(tree.pool()) > 0);
  // A new batch size is a new recording.
  Tensor x8 = gpu_randn({8, 16});
  CHECK(max_diff(f({x8, w1, w2})[0], mlp({x8, w1, w2})[0]) < 1e-5f);
  CHECK(tree.stats().recordings == 2);
}

TEST_CASE("CUDA tree: copied inputs are copied into the recording's slots, in its pool, before each run") {
  tg::manual_seed(3);
  tg::graphs::Tree tree;
  // Returns a view of its input: the output is the input slot itself.
  auto f = tree.wrap([](const Tensors& in) { return Tensors{in[0].view({8, 8})}; }, {}, "view");
  Tensor x = gpu_randn({64});
  Tensor y = f({x})[0];
  CHECK(y.data_ptr() != x.data_ptr());
  const tg::alloc::PoolState state = tg::cuda::caching_allocator().checkpoint_pool(0, tree.pool().id());
  bool slot_in_pool = false;
  for (const auto& segment : state.segments) {
    for (const auto& block : segment.blocks) {
      slot_in_pool = slot_in_pool || (block.allocated && block.address == reinterpret_cast<uintptr_t>(y.data_ptr()));
    }
  }
  CHECK(slot_in_pool);
  CHECK(max_diff(y, x.view({8, 8})) == 0.0f);  // the slot was filled for the first run too
  Tensor x2 = gpu_randn({64});
  CHECK(max_diff(f({x2})[0], x2.view({8, 8})) == 0.0f);  // a replay refills it from x2
  CHECK(tree.stats().replays == 1);
}

TEST_CASE("CUDA tree: backward reads forward's saved tensors in place, from the same pool") {
  tg::manual_seed(1);
  Tensor w = gpu_randn({16, 8});
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
    Tensor x = gpu_randn({4, 16});
    Tensors fw = forward({x, w});
    Tensors grads = backward({fw[1], x});
    CHECK(h_seen_by_backward == fw[1].data_ptr());  // no copy of h
    Tensor w_eager = w.detach().clone().requires_grad_();
    tg::relu(tg::matmul(x, w_eager)).sum().backward();
    CHECK(max_diff(grads[0], w_eager.grad()) < 1e-4f);
  }
  CHECK(tree.stats().recordings == 2);
  CHECK(tree.stats().replays == 4);
}

TEST_CASE("CUDA tree: two branches from one prefix take the pool bytes of the larger path") {
  // 10 MiB of floats: one segment per tensor (the allocator's smallest request with a segment of
  // its own). Emulated kernels over it take a fraction of a second each: references run once.
  const int64_t n = 10 << 18;
  tg::graphs::TreeFunction prefix = [](const Tensors& in) { return Tensors{in[0] * 2.0}; };
  tg::graphs::TreeFunction branch_a = [](const Tensors& in) { return Tensors{(in[0] + 1.0).exp()}; };
  tg::graphs::TreeFunction branch_b = [](const Tensors& in) { return Tensors{(in[0] - 1.0).tanh() * 3.0}; };
  Tensor x = gpu_randn({n});
  const Tensor ref_a = branch_a(prefix({x}))[0].to(tg::Device(tg::kCPU));
  const Tensor ref_b = branch_b(prefix({x}))[0].to(tg::Device(tg::kCPU));
  auto same = [](const Tensor& gpu, const Tensor& cpu) { return tg::equal(gpu.to(tg::Device(tg::kCPU)), cpu); };

  tg::graphs::Tree tree;
  auto p = tree.wrap(prefix, {}, "prefix");
  auto a = tree.wrap(branch_a, {}, "a");
  auto b = tree.wrap(branch_b, {}, "b");
  CHECK(same(a(p({x}))[0], ref_a));
  const size_t after_a = pool_bytes(tree.pool());
  CHECK(same(b(p({x}))[0], ref_b));  // a new generation: p replays, b is its second child
  CHECK(same(a(p({x}))[0], ref_a));
  CHECK(tree.stats().recordings == 3);

  // The same three functions as separate CUDA graphs, each in its own pool.
  size_t separate = 0;
  {
    tg::cuda::CUDAStreamGuard side(tg::cuda::getStreamFromPool());
    for (const tg::graphs::TreeFunction& fn : {prefix, branch_a, branch_b}) {
      Tensor in = x.clone();
      fn({in});
      tg::graphs::Graph g(kGpu);
      g.capture_begin();
      fn({in});
      g.capture_end();
      separate += pool_bytes(g.pool());
    }
  }
  const size_t tree_bytes = pool_bytes(tree.pool());
  MESSAGE("CUDA tree pool ", tree_bytes, " bytes (", after_a, " after the first path), separate graphs ", separate,
          " bytes");
  const size_t tensor_bytes = static_cast<size_t>(n) * 4;
  // Branch b reused the two segments of branch a (x+1 and its exp), which are off its path,
  // and added one: its three tensors (x-1, its tanh, the output) live at once.
  CHECK(tree_bytes - after_a <= tensor_bytes);
  // The larger path, prefix → b: x's slot, 2x (read in place by b), b's three tensors, and at
  // most one small segment: 5 tensors; never the sum over both branches.
  CHECK(tree_bytes <= 5 * tensor_bytes + tg::alloc::kSmallSegment);
  CHECK(tree_bytes < separate);
}

TEST_CASE("CUDA tree: an output overwritten by a later replay refuses every access") {
  Tensor w1 = gpu_randn({16, 32}), w2 = gpu_randn({32, 8});
  auto f = tg::graphs::tree(mlp, {1, 2});
  Tensor first = f({gpu_randn({4, 16}), w1, w2})[0];
  Tensor first_detached = first.detach();     // made before the overwrite
  Tensor first_view = first.slice(0, 0, 2);   // likewise
  Tensor kept = f({gpu_randn({4, 16}), w1, w2})[0].clone();
  Tensor second = f({gpu_randn({4, 16}), w1, w2})[0];  // overwrites the memory of the earlier outputs
  for (const Tensor* t : {&first, &first_detached, &first_view}) {
    const std::string message = thrown<tg::Error>([&] { (void)(*t + 1.0); });
    CHECK(contains(message, "was overwritten by a replay of recording #1 of function 'function 0'"));
    CHECK(contains(message, "clone() an output to keep it"));
    CHECK(contains(thrown<tg::Error>([&] { (void)t->sum().item<float>(); }), "overwritten"));
    CHECK(contains(thrown<tg::Error>([&] { (void)t->detach().sum(); }), "overwritten"));
    CHECK(contains(thrown<tg::Error>([&] { (void)t->view({-1}); }), "overwritten"));
    CHECK(contains(thrown<tg::Error>([&] { (void)t->item<float>(); }), "overwritten"));
    CHECK(contains(thrown<tg::Error>([&] { (void)t->to(tg::Device(tg::kCPU)); }), "overwritten"));
    CHECK(contains(thrown<tg::Error>([&] {
                     std::ostringstream out;
                     out << *t;
                   }),
                   "this tensor is an output of recording #1"));
    CHECK(contains(thrown<tg::Error>([&] { f({*t, w1, w2}); }), "overwritten"));
  }
  CHECK(std::isfinite(kept.sum().item<float>()));    // a clone stays readable
  CHECK(second.abs().sum().item<float>() >= 0.0f);  // the latest output too
}

TEST_CASE("CUDA tree: re-recording is bounded: eager with one warning after K; LRU eviction") {
  Tensor w1 = gpu_randn({16, 32}), w2 = gpu_randn({32, 8});
  std::vector<std::string> warnings;
  tg::graphs::TreeOptions options;
  options.max_recordings_per_function = 3;
  options.max_live_recordings = 2;
  options.warn = [&](const std::string& w) { warnings.push_back(w); };
  tg::graphs::Tree tree(options);
  auto f = tree.wrap(mlp, {1, 2}, "mlp");
  Tensor out1 = f({gpu_randn({1, 16}), w1, w2})[0];
  f({gpu_randn({2, 16}), w1, w2});
  f({gpu_randn({3, 16}), w1, w2});  // a third shape: the least recently used (batch 1) is evicted
  CHECK(tree.stats().evictions == 1);
  CHECK(tree.stats().live_recordings == 2);
  // Recording batch 2 reused the memory of batch 1's outputs (another root of the tree).
  CHECK(contains(thrown<tg::Error>([&] { (void)(out1 * 2.0); }),
                 "overwritten by recording #2 of function 'mlp' (being recorded)"));
  for (int batch = 4; batch <= 6; ++batch) {  // more new shapes: eager now
    Tensor x = gpu_randn({batch, 16});
    CHECK(max_diff(f({x, w1, w2})[0], mlp({x, w1, w2})[0]) == 0.0f);
  }
  CHECK(tree.stats().recordings == 3);
  CHECK(tree.stats().eager_calls == 3);
  REQUIRE(warnings.size() == 1);
  CHECK(contains(warnings[0], "'mlp' was recorded 3 times"));
  Tensor x3 = gpu_randn({3, 16});  // a kept recording still replays
  CHECK(max_diff(f({x3, w1, w2})[0], mlp({x3, w1, w2})[0]) < 1e-5f);
  CHECK(tree.stats().replays == 1);
}

TEST_CASE("CUDA tree: inputs on two devices, or on another device than the tree's, are refused") {
  auto fn = [](const Tensors& in) { return Tensors{in[0] * 2.0}; };
  CHECK(contains(thrown<tg::Error>([&] { tg::graphs::tree(fn)({gpu_randn({4}), tg::randn({4})}); }),
                 "input 1 of function 0 is on cpu but input 0 on cuda:0"));
  tg::graphs::Tree on_gpu;
  auto g = on_gpu.wrap(fn, {}, "double");
  Tensor x = gpu_randn({4});
  CHECK(max_diff(g({x})[0], x * 2.0) == 0.0f);
  CHECK(contains(thrown<tg::Error>([&] { g({tg::randn({4})}); }),
                 "double was given inputs on cpu but this graph tree records work on cuda:0"));
  tg::graphs::Tree on_cpu;
  auto c = on_cpu.wrap(fn, {}, "double");
  c({tg::randn({4})});
  CHECK(contains(thrown<tg::Error>([&] { c({gpu_randn({4})}); }),
                 "double was given inputs on cuda:0 but this graph tree records work on cpu"));
}

TEST_CASE("CUDA tree: a function that reads a value while recorded fails with CUDA's capture error; the tree goes on") {
  tg::graphs::Tree tree;
  auto reads = tree.wrap([](const Tensors& in) {
    const float s = in[0].sum().item<float>();  // a copy to the host: illegal in a capture
    return Tensors{in[0] * s};
  }, {}, "reads");
  auto fine = tree.wrap([](const Tensors& in) { return Tensors{in[0] + 1.0}; }, {}, "fine");
  Tensor x = gpu_randn({16});
  CHECK(contains(thrown<tg::Error>([&] { reads({x}); }), "operation not permitted when stream is capturing"));
  CHECK(tree.stats().recordings == 0);
  tree.mark_step();
  CHECK(max_diff(fine({x})[0], x + 1.0) == 0.0f);
  CHECK(max_diff(fine({x})[0], x + 1.0) == 0.0f);
  CHECK(tree.stats().replays == 1);
}
