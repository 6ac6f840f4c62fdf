// What a build without CUDA, or a machine without a GPU, reports: no device, and a clear
// "CUDA is not available" error from every way of asking for CUDA memory.
#include <doctest/doctest.h>

#include <string>

#include <tensorgen/tensorgen.h>

#ifdef TG_WITH_CUDA
#include "cuda/cuda_allocator.h"
#include "cuda/cuda_device.h"
#include "cuda/cuda_stream.h"
#include "cuda/pinned_allocator.h"
#endif

namespace {

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const tg::Error& e) {
    return e.message();
  } catch (const std::exception& e) {
    return std::string("<not a tg::Error> ") + e.what();
  }
  return "<no exception>";
}

bool says_unavailable(const std::string& message) { return message.find("CUDA is not available: ") == 0; }

}  // namespace

TEST_CASE("without a GPU: no device is reported") {
  CHECK(tg::cuda::device_count() == 0);
  CHECK_FALSE(tg::cuda::is_available());
}

TEST_CASE("without a GPU: factories on CUDA raise 'CUDA is not available'") {
  const std::string message = error_of([] { tg::empty({2, 3}, tg::TensorOptions().device(tg::kCUDA)); });
  CHECK_MESSAGE(says_unavailable(message), message);
  CHECK(message.find("empty") != std::string::npos);
  CHECK(says_unavailable(error_of([] { tg::zeros({2}, tg::TensorOptions().device("cuda:0")); })));
  CHECK(says_unavailable(error_of([] { tg::arange(5, tg::TensorOptions().device(tg::kCUDA)); })));
  CHECK(says_unavailable(error_of([] { tg::randn({4}, tg::TensorOptions().device(tg::kCUDA)); })));
}

TEST_CASE("without a GPU: moving a tensor to CUDA raises 'CUDA is not available'") {
  const tg::Tensor t = tg::ones({2, 2});
  const std::string message = error_of([&] { (void)t.to(tg::kCUDA); });
  CHECK_MESSAGE(says_unavailable(message), message);
  CHECK(says_unavailable(error_of([&] { (void)t.to(tg::Device("cuda:1")); })));
}

TEST_CASE("without a GPU: pin_memory=true raises 'CUDA is not available', naming the call and pin_memory") {
  // A tg::Error as in LibTorch, not NotImplementedError: pinning exists, this machine cannot do it.
  const std::string message = error_of([] { tg::zeros({2}, tg::TensorOptions().pinned_memory(true)); });
  CHECK_MESSAGE(message.find("CUDA is not available: [zeros] pin_memory=true asks for pinned") == 0, message);
  bool not_implemented = false;
  try {
    tg::empty({2}, tg::TensorOptions().pinned_memory(true));
  } catch (const tg::NotImplementedError&) {
    not_implemented = true;
  } catch (const tg::Error&) {
  }
  CHECK_FALSE(not_implemented);
  CHECK(error_of([] { tg::empty({2}, tg::TensorOptions().pinned_memory(true)); }).find("[empty] pin_memory") !=
        std::string::npos);
  CHECK(error_of([] { tg::rand_like(tg::ones({2}), tg::TensorOptions().pinned_memory(true)); })
            .find("[rand_like] pin_memory") != std::string::npos);
  const tg::Tensor t = tg::ones({2});
  CHECK(error_of([&] { (void)t.pin_memory(); }).find("CUDA is not available: [pin_memory] pin_memory=true") == 0);
  // Asking whether memory is pinned needs no device: nothing is.
  CHECK_FALSE(t.is_pinned());
  CHECK_FALSE(tg::ones({2}, tg::TensorOptions().pinned_memory(false)).is_pinned());
}

TEST_CASE("without a GPU: seeding and the CPU still work") {
  tg::manual_seed(7);
  const tg::Tensor a = tg::rand({3});
  tg::manual_seed(7);
  const tg::Tensor b = tg::rand({3});
  for (int64_t i = 0; i < 3; ++i) CHECK(a.data_ptr<float>()[i] == b.data_ptr<float>()[i]);
}

#ifdef TG_WITH_CUDA
TEST_CASE("without a GPU: the CUDA runtime's entry points raise 'CUDA is not available'") {
  CHECK(says_unavailable(error_of([] { tg::cuda::getCurrentCUDAStream(); })));
  CHECK(says_unavailable(error_of([] { tg::cuda::getStreamFromPool(); })));
  CHECK(says_unavailable(error_of([] { tg::cuda::memory_allocated(); })));
  CHECK(says_unavailable(error_of([] { tg::cuda::pinned_allocator()->allocate(16); })));
  CHECK(says_unavailable(error_of([] { tg::cuda::synchronize(); })));
  CHECK_NOTHROW(tg::cuda::empty_cache());
  CHECK_NOTHROW(tg::cuda::empty_host_cache());
}
#endif
