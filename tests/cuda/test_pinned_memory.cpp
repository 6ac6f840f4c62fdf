// Pinned host memory through the public API: pin_memory=true in the factories,
// Tensor::pin_memory() and is_pinned(), the pinned result of a non-blocking copy to the host,
// and the caching host allocator's rule that a freed block is reused only once the events of
// the copies that used it have completed (docs/cuda.md, "Pinned host memory").
#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cuda/cuda_check.h"
#include "cuda/cuda_stream.h"
#include "cuda/pinned_allocator.h"
#include "cuda_test_helpers.h"

using namespace tg::cuda;

namespace {

const tg::TensorOptions kPinned = tg::TensorOptions().pinned_memory(true);

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const tg::Error& e) {
    return e.message();
  }
  return "<no exception>";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The state of the pinned block at `ptr` in the host allocator's snapshot, or "missing".
std::string host_block_state(const void* ptr) {
  for (const auto& segment : pinned_caching_allocator().snapshot().segments) {
    for (const auto& block : segment.blocks) {
      if (block.address == reinterpret_cast<uintptr_t>(ptr)) return tg::alloc::to_string(block.state);
    }
  }
  return "missing";
}

// Keeps `stream` from completing the work given to it after this point until release(): on
// the emulated device the stream is held back (its events answer "not ready"), on a GPU a
// host function blocks the stream until released.
class StreamHold {
 public:
  explicit StreamHold(const CUDAStream& stream) : stream_(stream) {
#ifdef TG_CUDA_EMULATION
    tg::cuda::emu::hold_stream(stream_.stream());
#else
    TG_CUDA_CHECK(cudaLaunchHostFunc(stream_.stream(), &wait_for_release, &released_));
#endif
  }
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;
  ~StreamHold() {
    release();
    stream_.synchronize();  // the host function no longer reads released_
  }

  void release() {
#ifdef TG_CUDA_EMULATION
    tg::cuda::emu::release_stream(stream_.stream());
#else
    released_.store(true);
#endif
  }

 private:
  [[maybe_unused]] static void wait_for_release(void* flag) {
    while (!static_cast<std::atomic<bool>*>(flag)->load()) std::this_thread::yield();
  }

  CUDAStream stream_;
  std::atomic<bool> released_{false};
};

}  // namespace

TEST_CASE("pin_memory=true: every factory allocates pinned CPU memory from the caching host allocator") {
  const int64_t before = host_memory_stats().allocated_bytes.current;
  const tg::Tensor like = tg::ones({5, 3});
  const std::vector<std::pair<std::string, tg::Tensor>> made = {
      {"empty", tg::empty({5, 3}, kPinned)},
      {"zeros", tg::zeros({5, 3}, kPinned)},
      {"ones", tg::ones({5, 3}, kPinned)},
      {"full", tg::full({5, 3}, 2.5, kPinned)},
      {"arange", tg::arange(15, kPinned.dtype(tg::kFloat))},  // sized by arange_out: the storage grows pinned
      {"rand", tg::rand({5, 3}, kPinned)},
      {"randn", tg::randn({5, 3}, kPinned)},
      {"empty_like", tg::empty_like(like, kPinned)},
      {"zeros_like", tg::zeros_like(like, kPinned)},
      {"ones_like", tg::ones_like(like, kPinned)},
      {"full_like", tg::full_like(like, -1, kPinned)},
      {"rand_like", tg::rand_like(like, kPinned)},
      {"randn_like", tg::randn_like(like, kPinned)},
  };
  for (const auto& [name, t] : made) {
    INFO(name);
    CHECK(t.is_cpu());
    CHECK(t.is_pinned());
    CHECK(is_pinned(t));  // the CUDA runtime's own view agrees with the core's
    CHECK(t.numel() == 15);
  }
  CHECK(host_memory_stats().allocated_bytes.current >= before + 13 * 15 * 4);
  const std::vector<double> zeros = cuda_test::values(made[1].second), ones = cuda_test::values(made[2].second),
                            full = cuda_test::values(made[3].second), arange = cuda_test::values(made[4].second),
                            rand = cuda_test::values(made[5].second), full_like = cuda_test::values(made[10].second);
  for (size_t i = 0; i < 15; ++i) {
    CHECK(zeros[i] == 0.0);
    CHECK(ones[i] == 1.0);
    CHECK(full[i] == 2.5);
    CHECK(arange[i] == static_cast<double>(i));
    CHECK((rand[i] >= 0.0 && rand[i] < 1.0));
    CHECK(full_like[i] == -1.0);
  }
  // Without pin_memory, or with it false, memory is ordinary CPU memory.
  CHECK_FALSE(tg::zeros({5, 3}).is_pinned());
  CHECK_FALSE(tg::zeros({5, 3}, tg::TensorOptions().pinned_memory(false)).is_pinned());
  CHECK_FALSE(tg::empty_like(made[0].second).is_pinned());  // self's pinning is not an option it passes on
  CHECK_FALSE(cuda_test::on_gpu(like).is_pinned());
}

TEST_CASE("pin_memory=true with a CUDA device is refused, as in LibTorch") {
  const tg::TensorOptions pinned_gpu = kPinned.device(cuda_test::kGpu);
  const std::string message = error_of([&] { tg::empty({2}, pinned_gpu); });
  CHECK_MESSAGE(contains(message, "[empty] only dense CPU tensors can be pinned"), message);
  CHECK(contains(message, "cuda:0"));
  CHECK(contains(error_of([&] { tg::zeros({2}, pinned_gpu); }), "only dense CPU tensors can be pinned"));
  // A *_like factory takes self's device unless told otherwise.
  const tg::Tensor gpu = tg::zeros({2}, tg::TensorOptions().device(cuda_test::kGpu));
  CHECK(contains(error_of([&] { tg::ones_like(gpu, kPinned); }), "only dense CPU tensors can be pinned"));
  CHECK(tg::ones_like(gpu, kPinned.device(tg::kCPU)).is_pinned());
}

TEST_CASE("Tensor::pin_memory returns a pinned copy, or self when already pinned") {
  const tg::Tensor x = tg::arange(12, tg::TensorOptions().dtype(tg::kFloat)).reshape({3, 4}).t();
  REQUIRE_FALSE(x.is_contiguous());
  const tg::Tensor pinned = x.pin_memory();
  CHECK(pinned.is_pinned());
  CHECK_FALSE(x.is_pinned());
  CHECK_FALSE(pinned.is_alias_of(x));
  CHECK(pinned.sizes() == x.sizes());
  CHECK(pinned.scalar_type() == tg::kFloat);
  CHECK(cuda_test::values(pinned) == cuda_test::values(x));
  CHECK(pinned.pin_memory().is_same(pinned));
  // Views of pinned memory are pinned: they share the storage.
  CHECK(pinned.select(0, 1).is_pinned());
  const std::string message = error_of([] { (void)tg::ones({2}, tg::TensorOptions().device(cuda_test::kGpu)).pin_memory(); });
  CHECK_MESSAGE(contains(message, "[pin_memory] only dense CPU tensors can be pinned"), message);
  // Autograd sees an identity.
  const tg::Tensor leaf = tg::ones({4}).requires_grad_(true);
  const tg::Tensor copy = leaf.pin_memory();
  CHECK(copy.requires_grad());
  (copy * 3).sum().backward();
  CHECK(cuda_test::values(leaf.grad()) == std::vector<double>{3, 3, 3, 3});
}

TEST_CASE("a non-blocking copy from a CUDA tensor to the host lands in pinned memory, as in LibTorch") {
  const tg::Tensor gpu = tg::arange(100, tg::TensorOptions().device(cuda_test::kGpu).dtype(tg::kFloat));
  const tg::Tensor async = gpu.to(tg::TensorOptions().device(tg::kCPU), /*non_blocking=*/true);
  getCurrentCUDAStream().synchronize();  // the caller's part, as in PyTorch
  CHECK(async.is_pinned());
  CHECK(cuda_test::values(async)[99] == 99.0);
  CHECK_FALSE(gpu.to(tg::TensorOptions().device(tg::kCPU)).is_pinned());  // a blocking copy needs no pinning
  CHECK_FALSE(tg::ones({3}).to(tg::kDouble, /*non_blocking=*/true).is_pinned());  // host to host
}

TEST_CASE("a freed pinned block is reused at once when no copy used it") {
  empty_host_cache();  // a fresh segment: the block at its start is the one a new request gets
  void* address = nullptr;
  {
    const tg::Tensor t = tg::empty({4096}, kPinned);
    address = t.data_ptr();
  }
  CHECK(host_block_state(address) == "free");
  CHECK(tg::empty({4096}, kPinned).data_ptr() == address);
}

TEST_CASE("a pinned block is reused only after the event of the non-blocking copy that read it") {
  empty_host_cache();
  const CUDAStream side = getStreamFromPool();
  const int64_t n = 1 << 16;
  const tg::Tensor gpu = tg::empty({n}, tg::TensorOptions().device(cuda_test::kGpu));
  void* address = nullptr;
  {
    StreamHold hold(side);
    {
      const tg::Tensor host = tg::full({n}, 3.0, kPinned);
      address = host.data_ptr();
      const CUDAStreamGuard guard(side);
      gpu.copy_(host, /*non_blocking=*/true);  // records the block's use on `side`
    }
    // Freed while the copy has not completed: the block waits for the event on `side`.
    CHECK(host_block_state(address) == "pending_free");
    const tg::Tensor other = tg::empty({n}, kPinned);
    CHECK(other.data_ptr() != address);
    CHECK(host_block_state(address) == "pending_free");
    hold.release();
    side.synchronize();
  }
  // The event has completed: the next allocation of that size takes the block back.
  const tg::Tensor again = tg::empty({n}, kPinned);
  CHECK(again.data_ptr() == address);
  side.synchronize();
  CHECK(cuda_test::values(gpu)[n - 1] == 3.0);
}

TEST_CASE("a pinned block written by a non-blocking device-to-host copy waits for that copy too") {
  empty_host_cache();
  const CUDAStream side = getStreamFromPool();
  const tg::Tensor gpu = tg::ones({1 << 14}, tg::TensorOptions().device(cuda_test::kGpu));
  void* address = nullptr;
  {
    StreamHold hold(side);
    {
      const CUDAStreamGuard guard(side);
      const tg::Tensor host = tg::empty({1 << 14}, kPinned);
      address = host.data_ptr();
      host.copy_(gpu, /*non_blocking=*/true);
    }
    CHECK(host_block_state(address) == "pending_free");
    CHECK(tg::empty({1 << 14}, kPinned).data_ptr() != address);
  }  // released and synchronized
  CHECK(tg::empty({1 << 14}, kPinned).data_ptr() == address);
}
