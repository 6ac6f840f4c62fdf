// The shared-memory race detector (runtime/cuda/emulation/race_detector.h): deliberately racy
// kernels are reported with the kernel, the address and both threads; the same kernels with a
// barrier, a warp primitive or atomics are not; and the backend's own kernels, which use
// shared memory in their reductions, run under the check without a report. This file is
// compiled with the instrumentation of the kernel units (tests/cuda/emulation/meson.build).
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "cuda/emulation/race_detector.h"

namespace emu = tg::cuda::emu;

// Kernels outside an anonymous namespace, so that messages can name them (export_dynamic).
namespace race_test {

__global__ void read_without_barrier(int* out) {
  __shared__ int cell;
  if (threadIdx.x == 0) cell = 7;
  if (threadIdx.x == 1) out[0] = cell;
}

__global__ void read_after_barrier(int* out) {
  __shared__ int cell;
  if (threadIdx.x == 0) cell = 7;
  __syncthreads();
  if (threadIdx.x == 1) out[0] = cell;
}

__global__ void both_write_dynamic(int* out) {
  int* shared = static_cast<int*>(emu::dynamic_shared_memory());
  shared[threadIdx.x / 2] = static_cast<int>(threadIdx.x);  // threads 2k and 2k+1 write slot k
  __syncthreads();
  out[threadIdx.x] = shared[threadIdx.x / 2];
}

// A warp-synchronous exchange: correct with __syncwarp between the write and the read, racy
// without (Volta and later do not run a warp in lockstep).
__global__ void warp_exchange(int* out, bool sync) {
  __shared__ int lanes[32];
  lanes[threadIdx.x] = static_cast<int>(threadIdx.x) * 3;
  if (sync) __syncwarp();
  out[threadIdx.x] = lanes[(threadIdx.x + 1) % 32];
}

__global__ void atomic_counter(int* out) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  atomicAdd(&count, 1);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = count;
}

// Each thread reads what its neighbour wrote in the previous round, with the barrier there:
// many epochs, no race.
__global__ void rounds(int* out) {
  __shared__ int values[64];
  values[threadIdx.x] = static_cast<int>(threadIdx.x);
  for (int round = 0; round < 4; ++round) {
    __syncthreads();
    const int next = values[(threadIdx.x + 1) % blockDim.x];
    __syncthreads();
    values[threadIdx.x] = next;
  }
  __syncthreads();
  out[threadIdx.x] = values[threadIdx.x];
}

std::string last_error_text() {
  const cudaError_t error = cudaGetLastError();
  return std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
}

struct DeviceInts {
  explicit DeviceInts(size_t n) : size(n) {
    REQUIRE(cudaMalloc(reinterpret_cast<void**>(&data), n * sizeof(int)) == cudaSuccess);
    const std::vector<int> zeros(n, 0);
    REQUIRE(cudaMemcpy(data, zeros.data(), n * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
  }
  ~DeviceInts() { (void)cudaFree(data); }
  std::vector<int> host() const {
    std::vector<int> out(size);
    REQUIRE(cudaMemcpy(out.data(), data, size * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    return out;
  }
  int* data = nullptr;
  size_t size;
};

}  // namespace race_test

using namespace race_test;

namespace {

// True, after saying so, when TG_EMU_RACECHECK=0 has turned the detector off: the cases that
// expect a report then report a skip instead of passing in silence.
bool race_check_off() {
  if (emu::race_check_enabled()) return false;
  MESSAGE("skipped: TG_EMU_RACECHECK=0 turns the race detector off");
  return true;
}

}  // namespace

TEST_CASE("a read of shared memory another thread wrote with no barrier between is a reported race") {
  if (race_check_off()) return;
  DeviceInts out(1);
  emu::launch(read_without_barrier, dim3(2), dim3(32), 0, nullptr, out.data);
  const std::string text = last_error_text();
  INFO(text);
  CHECK(text.find("cudaErrorLaunchFailure") == 0);
  CHECK(text.find("read_without_barrier") != std::string::npos);
  CHECK(text.find("block (0,0,0)") != std::string::npos);
  CHECK(text.find("shared-memory race on static __shared__ memory at 0x") != std::string::npos);
  CHECK(text.find("thread (1,0,0) reads it and thread (0,0,0) wrote it") != std::string::npos);
  // The same exchange with a barrier is fine, and the device goes on working after the report.
  emu::launch(read_after_barrier, dim3(2), dim3(32), 0, nullptr, out.data);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(out.host()[0] == 7);
}

TEST_CASE("two threads writing one address of dynamic shared memory is a reported race") {
  if (race_check_off()) return;
  DeviceInts out(64);
  emu::launch(both_write_dynamic, dim3(1), dim3(64), 32 * sizeof(int), nullptr, out.data);
  const std::string text = last_error_text();
  INFO(text);
  CHECK(text.find("both_write_dynamic") != std::string::npos);
  CHECK(text.find("shared-memory race on dynamic shared memory + 0 ") != std::string::npos);
  CHECK(text.find("thread (1,0,0) writes it and thread (0,0,0) wrote it") != std::string::npos);
}

TEST_CASE("lanes of a warp need a warp primitive between a write and another lane's read") {
  if (race_check_off()) return;
  DeviceInts out(32);
  emu::launch(warp_exchange, dim3(1), dim3(32), 0, nullptr, out.data, true);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  const std::vector<int> host = out.host();
  for (int lane = 0; lane < 32; ++lane) CHECK(host[static_cast<size_t>(lane)] == (lane + 1) % 32 * 3);
  emu::launch(warp_exchange, dim3(1), dim3(32), 0, nullptr, out.data, false);
  const std::string text = last_error_text();
  INFO(text);
  CHECK(text.find("warp_exchange") != std::string::npos);
  // Lane 0 runs first (nothing stops it) and reads slot 1 before lane 1 writes it.
  CHECK(text.find("thread (1,0,0) writes it and thread (0,0,0) read it") != std::string::npos);
}

TEST_CASE("atomics and barrier-separated rounds on shared memory are not races") {
  DeviceInts out(64);
  const uint64_t before = emu::race_checked_accesses();
  emu::launch(atomic_counter, dim3(3), dim3(96), 0, nullptr, out.data);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  CHECK(out.host()[0] == 96);
  emu::launch(rounds, dim3(2), dim3(64), 0, nullptr, out.data);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  const std::vector<int> host = out.host();
  for (int t = 0; t < 64; ++t) CHECK(host[static_cast<size_t>(t)] == (t + 4) % 64);
  if (emu::race_check_enabled()) CHECK(emu::race_checked_accesses() > before);
}

TEST_CASE("the backend's kernels that share memory in a block run under the race check without a report") {
  if (race_check_off()) return;
  const tg::Tensor x = tg::randn({3, 2000}, tg::TensorOptions().dtype(tg::kFloat)), y = x.to(tg::kCUDA);
  const auto difference = [](const tg::Tensor& a, const tg::Tensor& b) {
    return tg::amax(tg::abs(a.to(tg::kCPU) - b)).item<double>();
  };
  const uint64_t before = emu::race_checked_accesses();
  // Long rows: a block per row, combined through shared memory (block_reduce.cuh, reduce.cuh).
  CHECK(difference(tg::softmax(y, -1), tg::softmax(x, -1)) < 1e-5);
  CHECK(difference(tg::sum(y, std::vector<int64_t>{1}), tg::sum(x, std::vector<int64_t>{1})) < 1e-2);
  CHECK(difference(tg::var(y, std::vector<int64_t>{1}, true), tg::var(x, std::vector<int64_t>{1}, true)) < 1e-3);
  CHECK(difference(std::get<0>(tg::native_layer_norm(y, {2000}, std::nullopt, std::nullopt, 1e-5)),
                   std::get<0>(tg::native_layer_norm(x, {2000}, std::nullopt, std::nullopt, 1e-5))) < 1e-4);
  CHECK(emu::race_checked_accesses() > before);
}
