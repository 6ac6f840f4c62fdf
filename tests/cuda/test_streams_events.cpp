// The CUDA runtime against the real device: error checks, device guards, stream pools and
// the thread-local current stream, events.
#include <doctest/doctest.h>

#include <thread>

#include "core/stream_guard.h"
#include "cuda/cublas_handle.h"
#include "cuda/cuda_allocator.h"
#include "cuda/cuda_check.h"
#include "cuda/cuda_event.h"
#include "cuda/cuda_guard.h"
#include "cuda/cuda_stream.h"
#include "cuda_test_helpers.h"

using namespace tg::cuda;

TEST_CASE("TG_CUDA_CHECK turns a CUDA error into a tg::Error naming the call") {
  std::string message;
  try {
    TG_CUDA_CHECK(cudaSetDevice(9999));
  } catch (const tg::Error& e) {
    message = e.message();
  }
  CHECK(message.find("cudaSetDevice(9999)") != std::string::npos);
  CHECK(message.find("cudaErrorInvalidDevice") != std::string::npos);
  // The error was cleared: the next call succeeds.
  int device = -1;
  CHECK_NOTHROW([&] { TG_CUDA_CHECK(cudaGetDevice(&device)); }());
  CHECK_THROWS_AS([] { TG_CUDA_CHECK(cudaErrorMemoryAllocation); }(), tg::OutOfMemoryError);
}

TEST_CASE("device count and guards") {
  CHECK(tg::cuda::device_count() >= 1);
  CHECK(device_count_or_zero() == tg::cuda::device_count());
  const DeviceIndex before = current_device();
  {
    CUDAGuard guard(DeviceIndex{0});
    CHECK(current_device() == 0);
    CHECK(guard.original_device() == tg::Device(tg::kCUDA, before));
  }
  CHECK(current_device() == before);
  {
    OptionalCUDAGuard none(std::nullopt);
    OptionalCUDAGuard cpu(tg::Device(tg::kCPU));
    CHECK_FALSE(none.original_device().has_value());
    CHECK(current_device() == before);
  }
  const std::string message = [&] {
    try {
      resolve_device(static_cast<DeviceIndex>(tg::cuda::device_count()), "test");
    } catch (const tg::Error& e) {
      return e.message();
    }
    return std::string();
  }();
  CHECK(message.find("does not exist") != std::string::npos);
}

TEST_CASE("streams: default, pool and the current stream") {
  const CUDAStream default_stream = getDefaultCUDAStream();
  CHECK(default_stream.id() == 0);
  CHECK(default_stream.stream() == nullptr);
  CHECK(getCurrentCUDAStream() == default_stream);

  const CUDAStream a = getStreamFromPool();
  const CUDAStream b = getStreamFromPool();
  CHECK(a != b);  // round-robin
  CHECK(a.id() >= 1);
  CHECK(a.id() <= kStreamsPerPool);
  CHECK(getStreamFromPool(true).is_high_priority());
  CHECK(a.stream() != nullptr);

  {
    CUDAStreamGuard guard(a);
    CHECK(getCurrentCUDAStream() == a);
    CHECK(guard.original_stream() == default_stream);
    // Another thread has its own current stream.
    std::thread([&] { CHECK(getCurrentCUDAStream() == default_stream); }).join();
  }
  CHECK(getCurrentCUDAStream() == default_stream);
  CHECK(a.query());
  CHECK_NOTHROW(a.synchronize());
  CHECK_THROWS_AS(CUDAStream(tg::Stream(tg::Device(tg::kCUDA, 0), 999)), tg::Error);
}

TEST_CASE("events order work between streams") {
  const CUDAStream producer = getStreamFromPool();
  const CUDAStream consumer = getStreamFromPool();
  tg::Tensor x;
  {
    CUDAStreamGuard guard(producer);
    x = tg::ones({1 << 20}, tg::TensorOptions().device(cuda_test::kGpu));
    x.mul_(3.0);
  }
  CUDAEvent ready;
  CHECK(ready.query());  // never recorded
  ready.record(producer);
  ready.block(consumer);
  tg::Tensor total;
  {
    CUDAStreamGuard guard(consumer);
    total = tg::sum(x);
    tg::cuda::record_stream(x, consumer);
  }
  ready.synchronize();
  CHECK(ready.query());
  consumer.synchronize();
  CHECK(cuda_test::values(total)[0] == doctest::Approx(3.0 * (1 << 20)));

  CUDAEvent start(cudaEventDefault), stop(cudaEventDefault);
  start.record();
  stop.record();
  stop.synchronize();
  CHECK(start.elapsed_time(stop) >= 0.0f);
  CHECK_THROWS_AS(ready.elapsed_time(stop), tg::Error);  // no timing
}

TEST_CASE("the generic Event and OptionalStreamGuard drive CUDA streams") {
  const CUDAStream side = getStreamFromPool();
  {
    tg::OptionalStreamGuard guard(side.unwrap());
    CHECK(getCurrentCUDAStream() == side);
  }
  CHECK(getCurrentCUDAStream() == getDefaultCUDAStream());
  tg::Event event(tg::kCUDA);
  CHECK_FALSE(event.was_recorded());
  event.record(side.unwrap());
  CHECK(event.was_recorded());
  CHECK_NOTHROW(event.block(getDefaultCUDAStream().unwrap()));
  CHECK_THROWS_AS(event.record(tg::Stream(tg::Device(tg::kCPU), 0)), tg::Error);
}

TEST_CASE("cuBLAS handles: one per stream, TF32 off by default") {
  CHECK_FALSE(allow_tf32());
  const cublasHandle_t on_default = getCurrentCUDABlasHandle();
  CHECK(on_default == getCurrentCUDABlasHandle());
  cudaStream_t bound = nullptr;
  {
    CUDAStreamGuard guard(getStreamFromPool());
    const cublasHandle_t on_side = getCurrentCUDABlasHandle();
    CHECK(on_side != on_default);
    TG_CUBLAS_CHECK(cublasGetStream(on_side, &bound));
    CHECK(bound == getCurrentCUDAStream().stream());
  }
  set_allow_tf32(true);
  cublasMath_t mode{};
  TG_CUBLAS_CHECK(cublasGetMathMode(getCurrentCUDABlasHandle(), &mode));
  CHECK(mode == CUBLAS_TF32_TENSOR_OP_MATH);
  set_allow_tf32(false);
  TG_CUBLAS_CHECK(cublasGetMathMode(getCurrentCUDABlasHandle(), &mode));
  CHECK(mode == CUBLAS_DEFAULT_MATH);
}
