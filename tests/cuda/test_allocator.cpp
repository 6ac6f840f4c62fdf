// The caching allocator and the pinned host allocator over the real device.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "cuda/cuda_allocator.h"
#include "cuda/cuda_check.h"
#include "cuda/cuda_event.h"
#include "cuda/cuda_stream.h"
#include "cuda/pinned_allocator.h"
#include "core/storage.h"
#include "core/tensor_impl.h"
#include "cuda_test_helpers.h"

using namespace tg::cuda;

namespace {

tg::Tensor gpu_floats(int64_t n) { return tg::empty({n}, tg::TensorOptions().device(cuda_test::kGpu)); }

// A float CPU tensor in pinned memory from the pinned allocator (what is_pinned recognises;
// from_blob over pinned memory is not, as in LibTorch).
tg::Tensor pinned_floats(std::vector<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  const size_t nbytes = static_cast<size_t>(n) * sizeof(float);
  auto storage = tg::make_intrusive<tg::StorageImpl>(pinned_allocator()->allocate(nbytes), nbytes, pinned_allocator());
  return tg::Tensor(tg::make_intrusive<tg::TensorImpl>(std::move(storage), tg::kFloat, sizes));
}

// The state of the block at `ptr` in the snapshot, or "missing".
std::string block_state(void* ptr) {
  for (const auto& segment : memory_snapshot().segments) {
    for (const auto& block : segment.blocks) {
      if (block.address == reinterpret_cast<uintptr_t>(ptr)) return tg::alloc::to_string(block.state);
    }
  }
  return "missing";
}

}  // namespace

TEST_CASE("CUDA tensors come from the caching allocator") {
  empty_cache();
  reset_peak_memory_stats();
  const int64_t before = memory_allocated();
  void* first = nullptr;
  {
    const tg::Tensor t = gpu_floats(1000);
    CHECK(t.is_cuda());
    CHECK(t.device() == cuda_test::kGpu);
    first = t.data_ptr();
    CHECK(memory_allocated() == before + 4096);  // 4000 bytes, rounded up to 512
    CHECK(memory_reserved() >= memory_allocated());
    CHECK(block_state(first) == "allocated");
  }
  CHECK(memory_allocated() == before);
  CHECK(block_state(first) == "free");
  // Freed on the stream it was allocated on: the next same-size request gets the block back.
  CHECK(gpu_floats(1000).data_ptr() == first);
  CHECK(max_memory_allocated() >= before + 4096);
  empty_cache();
  CHECK(block_state(first) == "missing");
}

TEST_CASE("record_stream keeps a block from reuse until the other stream is done") {
  const CUDAStream side = getStreamFromPool();
  void* ptr = nullptr;
  {
    tg::Tensor t = gpu_floats(1 << 20);
    ptr = t.data_ptr();
    {
      CUDAStreamGuard guard(side);
      // Work on `side` that reads t: several passes keep the stream busy for a while.
      tg::Tensor acc = tg::zeros({1 << 20}, tg::TensorOptions().device(cuda_test::kGpu));
      for (int i = 0; i < 50; ++i) acc.add_(t);
    }
    record_stream(t, side);
  }
  // Either the side stream is still running (pending) or it already finished (free).
  const std::string state = block_state(ptr);
  CHECK((state == "pending_free" || state == "free"));
  side.synchronize();
  (void)gpu_floats(1);  // any allocation processes finished events
  CHECK(block_state(ptr) == "free");
  CHECK_THROWS_AS(record_stream(tg::ones({2}), side), tg::Error);  // a CPU tensor
}

TEST_CASE("an impossible allocation raises OutOfMemoryError with the figures") {
  std::string message;
  try {
    (void)tg::empty({int64_t{1} << 50}, tg::TensorOptions().device(cuda_test::kGpu).dtype(tg::kByte));
  } catch (const tg::OutOfMemoryError& e) {
    message = e.message();
  }
  CHECK(message.find("1125899906842624") != std::string::npos);
  CHECK(memory_stats().ooms >= 1);
  // The device still works.
  CHECK(cuda_test::values(tg::ones({2}, tg::TensorOptions().device(cuda_test::kGpu)))[1] == 1.0);
}

TEST_CASE("allocator settings are parsed from TG_CUDA_ALLOC_CONF syntax") {
  CHECK(parse_allocator_config("").garbage_collection_threshold == 0.0);
  CHECK(parse_allocator_config("garbage_collection_threshold:0.75").garbage_collection_threshold == 0.75);
  CHECK_THROWS_AS(parse_allocator_config("garbage_collection_threshold:2"), tg::ValueError);
  CHECK_THROWS_AS(parse_allocator_config("max_split_size_mb:128"), tg::ValueError);
}

TEST_CASE("pinned host memory: cached, and reused only after the copies using it") {
  tg::Allocator* pinned = pinned_allocator();
  tg::DataPtr block = pinned->allocate(1 << 20);
  CHECK(is_pinned(block));
  CHECK(block.device().is_cpu());
  std::memset(block.get(), 0, 1 << 20);
  void* address = block.get();
  block = tg::DataPtr();
  CHECK(pinned->allocate(1 << 20).get() == address);  // cached

  // A non-blocking device-to-host copy into pinned memory: the block stays busy until done.
  const tg::Tensor source = tg::arange(1 << 18, tg::TensorOptions().device(cuda_test::kGpu).dtype(tg::kFloat));
  tg::DataPtr host = pinned->allocate(source.nbytes());
  const tg::Tensor target = tg::from_blob(host.get(), {1 << 18}, tg::TensorOptions().dtype(tg::kFloat));
  TG_CUDA_CHECK(cudaMemcpyAsync(host.get(), source.data_ptr(), source.nbytes(), cudaMemcpyDeviceToHost,
                                getCurrentCUDAStream()));
  record_host_use(host, getCurrentCUDAStream());
  getCurrentCUDAStream().synchronize();
  CHECK(target.data_ptr<float>()[12345] == 12345.0f);
  CHECK(host_memory_stats().allocated_bytes.current > 0);
  host = tg::DataPtr();
  empty_host_cache();
}

TEST_CASE("copies between host and device, blocking and not") {
  const tg::Tensor cpu = cuda_test::sample({64, 33}, tg::kFloat);
  for (bool non_blocking : {false, true}) {
    INFO("non_blocking = " << non_blocking);
    tg::Tensor gpu = tg::empty({64, 33}, tg::TensorOptions().device(cuda_test::kGpu));
    gpu.copy_(cpu, non_blocking);
    tg::Tensor back = tg::empty({64, 33});
    back.copy_(gpu, non_blocking);  // pageable: waits
    cuda_test::check_same(cpu, cuda_test::on_gpu(back), "round trip", {0, 0});
    // Into pinned memory, a non-blocking copy returns before the data arrives.
    tg::Tensor pinned_view = pinned_floats({64, 33});
    REQUIRE(is_pinned(pinned_view));
    pinned_view.copy_(gpu, non_blocking);
    getCurrentCUDAStream().synchronize();
    cuda_test::check_same(cpu, cuda_test::on_gpu(pinned_view), "into pinned memory", {0, 0});
    // From pinned memory, a non-blocking copy is queued on the stream directly.
    tg::Tensor from_pinned = tg::empty({64, 33}, tg::TensorOptions().device(cuda_test::kGpu));
    from_pinned.copy_(pinned_view, non_blocking);
    cuda_test::check_same(cpu, from_pinned, "from pinned memory", {0, 0});
  }
  // Dtype conversion and non-contiguous layouts on both sides.
  const tg::Tensor strided = cpu.transpose(0, 1);
  tg::Tensor half_gpu = tg::empty({33, 64}, tg::TensorOptions().device(cuda_test::kGpu).dtype(tg::kHalf));
  half_gpu.copy_(strided);
  cuda_test::check_same(strided.to(tg::kHalf), half_gpu, "converted on the way");
  tg::Tensor back = tg::empty({64, 33}, tg::TensorOptions().dtype(tg::kDouble)).transpose(0, 1);
  back.copy_(half_gpu);
  cuda_test::check_same(strided.to(tg::kHalf).to(tg::kDouble), cuda_test::on_gpu(back), "to a strided CPU tensor");
}

TEST_CASE("copies between two devices: peer copies, converted and into strided tensors") {
  if (tg::cuda::device_count() < 2) {
    MESSAGE("skipped: needs two CUDA devices");
    return;
  }
  const tg::Device second(tg::kCUDA, 1);
  const tg::Tensor cpu = cuda_test::sample({16, 9}, tg::kFloat);
  const tg::Tensor on_first = cuda_test::on_gpu(cpu);
  const tg::Tensor on_second = on_first.to(second);
  CHECK(on_second.device() == second);
  CHECK(tg::equal(cuda_test::on_cpu(on_second), cpu));
  // Converted on the source's device first, then copied into a transposed destination.
  tg::Tensor strided = tg::empty({9, 16}, tg::TensorOptions().device(second).dtype(tg::kDouble)).transpose(0, 1);
  strided.copy_(on_first);
  CHECK(tg::equal(cuda_test::on_cpu(strided), cpu.to(tg::kDouble)));
  // And back from a non-contiguous source on the second device.
  tg::Tensor back = tg::empty({9, 16}, tg::TensorOptions().device(cuda_test::kGpu).dtype(tg::kDouble));
  back.copy_(strided.transpose(0, 1));
  CHECK(tg::equal(cuda_test::on_cpu(back), cpu.t().to(tg::kDouble)));
}
