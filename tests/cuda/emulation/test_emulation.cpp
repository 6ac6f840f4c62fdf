// The emulated device runs kernels as a GPU would: every thread of the grid once, barriers and
// warp primitives with CUDA's semantics, and a block that cannot finish reported as an error.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <numeric>
#include <string>
#include <vector>

namespace emu = tg::cuda::emu;

// Kernels outside an anonymous namespace, so that messages can name them (export_dynamic).
namespace emulation_test {

// Device buffer of n ints, filled with `value`.
struct DeviceInts {
  explicit DeviceInts(size_t n, int value = 0) : size(n) {
    REQUIRE(cudaMalloc(reinterpret_cast<void**>(&data), n * sizeof(int)) == cudaSuccess);
    std::vector<int> host(n, value);
    REQUIRE(cudaMemcpy(data, host.data(), n * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
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

__global__ void write_global_index(int* out) {
  const unsigned int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned int threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  out[block * threads + thread] += static_cast<int>(block * threads + thread) + 1;
}

__global__ void reverse_in_block(int* data) {
  __shared__ int tile[128];
  tile[threadIdx.x] = data[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  data[blockIdx.x * blockDim.x + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

__global__ void early_exit_before_barrier(int* data) {
  if (threadIdx.x == 5) return;
  __syncthreads();
  data[threadIdx.x] = 1;
}

__global__ void warp_sums(int* out) {
  int value = static_cast<int>(threadIdx.x) + 1;
  for (int delta = 16; delta > 0; delta /= 2) value += __shfl_xor_sync(0xffffffffu, value, delta);
  out[threadIdx.x] = value;
}

__global__ void warp_primitives(int* out) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(threadIdx.x / 32);
  int* row = out + threadIdx.x * 6;
  row[0] = __shfl_down_sync(0xffffffffu, lane * 10, 3);
  row[1] = __shfl_up_sync(0xffffffffu, lane * 10, 2);
  row[2] = __shfl_sync(0xffffffffu, lane * 10 + warp, 7);
  row[3] = static_cast<int>(__ballot_sync(0xffffffffu, lane % 2 == 1));
  row[4] = __any_sync(0xffffffffu, lane == 31) + 2 * __all_sync(0xffffffffu, lane < 31);
  row[5] = __shfl_xor_sync(0xffffffffu, lane, 1, 4);
}

__global__ void partial_warp_full_mask(int* out) { out[threadIdx.x] = __shfl_down_sync(0xffffffffu, 1, 1); }

__global__ void atomic_sum(float* total, int* count) {
  atomicAdd(total, 0.5f);
  atomicAdd(count, 1);
}

__global__ void uses_dynamic_shared(int* out) {
  int* shared = static_cast<int*>(emu::dynamic_shared_memory());
  shared[threadIdx.x] = static_cast<int>(threadIdx.x) * 2;
  __syncthreads();
  out[threadIdx.x] = shared[(threadIdx.x + 1) % blockDim.x];
}

__global__ void throws_in_kernel(int* /*out*/) {
  if (threadIdx.x == 3) throw std::runtime_error("out of range");
}

std::string last_error_text() {
  const cudaError_t error = cudaGetLastError();
  return std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
}

}  // namespace emulation_test

using namespace emulation_test;

TEST_CASE("every thread of a 3-d grid of 3-d blocks runs exactly once") {
  const dim3 grid(3, 2, 2), block(4, 3, 2);
  DeviceInts out(12 * 24);
  emu::launch(write_global_index, grid, block, 0, nullptr, out.data);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  const std::vector<int> host = out.host();
  for (size_t i = 0; i < host.size(); ++i) CHECK(host[i] == static_cast<int>(i) + 1);
}

TEST_CASE("__syncthreads orders shared-memory writes before reads in every block") {
  DeviceInts data(256);
  std::vector<int> values(256);
  std::iota(values.begin(), values.end(), 0);
  REQUIRE(cudaMemcpy(data.data, values.data(), 256 * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
  emu::launch(reverse_in_block, dim3(2), dim3(128), 0, nullptr, data.data);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  const std::vector<int> host = data.host();
  for (int b = 0; b < 2; ++b) {
    for (int t = 0; t < 128; ++t) CHECK(host[static_cast<size_t>(b * 128 + t)] == b * 128 + 127 - t);
  }
}

TEST_CASE("a barrier that one thread never reaches is a launch failure, not a hang") {
  DeviceInts data(64);
  emu::launch(early_exit_before_barrier, dim3(1), dim3(64), 0, nullptr, data.data);
  const std::string text = last_error_text();
  CHECK(text.find("cudaErrorLaunchFailure") == 0);
  CHECK(text.find("deadlock") != std::string::npos);
  CHECK(text.find("63 wait at __syncthreads") != std::string::npos);
  CHECK(text.find("early_exit_before_barrier") != std::string::npos);
  // The device goes on working after the failure.
  emu::launch(reverse_in_block, dim3(1), dim3(64), 0, nullptr, data.data);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("__shfl_xor_sync butterflies give every lane the warp's sum") {
  DeviceInts out(64);
  emu::launch(warp_sums, dim3(1), dim3(64), 0, nullptr, out.data);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  const std::vector<int> host = out.host();
  for (int t = 0; t < 64; ++t) CHECK(host[static_cast<size_t>(t)] == (t < 32 ? 528 : 528 + 32 * 32));
}

TEST_CASE("shuffles, ballot, any and all follow CUDA's lane rules") {
  DeviceInts out(64 * 6);
  emu::launch(warp_primitives, dim3(1), dim3(64), 0, nullptr, out.data);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  const std::vector<int> host = out.host();
  for (int t = 0; t < 64; ++t) {
    const int lane = t % 32, warp = t / 32;
    const int* row = host.data() + t * 6;
    CHECK(row[0] == (lane + 3 < 32 ? (lane + 3) * 10 : lane * 10));  // past the end: own value
    CHECK(row[1] == (lane >= 2 ? (lane - 2) * 10 : lane * 10));
    CHECK(row[2] == 70 + warp);
    CHECK(static_cast<unsigned int>(row[3]) == 0xaaaaaaaau);
    CHECK(row[4] == 1);  // any: lane 31 says yes; all: lane 31 says no
    CHECK(row[5] == (lane ^ 1));  // within segments of 4
  }
}

TEST_CASE("a full mask in a block whose last warp is partial is reported") {
  DeviceInts out(40);
  emu::launch(partial_warp_full_mask, dim3(1), dim3(40), 0, nullptr, out.data);
  const std::string text = last_error_text();
  CHECK(text.find("cudaErrorLaunchFailure") == 0);
  CHECK(text.find("does not have (it has 8 threads)") != std::string::npos);
}

TEST_CASE("atomics from every thread of several blocks all land") {
  float* total = nullptr;
  DeviceInts count(1);
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&total), sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMemsetAsync(total, 0, sizeof(float), nullptr) == cudaSuccess);
  emu::launch(atomic_sum, dim3(4), dim3(100), 0, nullptr, total, count.data);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  float host_total = 0;
  REQUIRE(cudaMemcpy(&host_total, total, sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(host_total == 200.0f);
  CHECK(count.host()[0] == 400);
  (void)cudaFree(total);
}

TEST_CASE("dynamic shared memory has the launch's size and is shared by the block") {
  DeviceInts out(32);
  emu::launch(uses_dynamic_shared, dim3(1), dim3(32), 32 * sizeof(int), nullptr, out.data);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  const std::vector<int> host = out.host();
  for (int t = 0; t < 32; ++t) CHECK(host[static_cast<size_t>(t)] == ((t + 1) % 32) * 2);
}

TEST_CASE("bad launch configurations are cudaErrorInvalidConfiguration and run nothing") {
  DeviceInts out(2048, 0);
  emu::launch(write_global_index, dim3(1), dim3(2048), 0, nullptr, out.data);
  std::string text = last_error_text();
  CHECK(text.find("cudaErrorInvalidConfiguration") == 0);
  CHECK(text.find("at most 1024 threads") != std::string::npos);
  emu::launch(write_global_index, dim3(0), dim3(32), 0, nullptr, out.data);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  emu::launch(write_global_index, dim3(1), dim3(32), 64 * 1024, nullptr, out.data);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  for (int v : out.host()) CHECK(v == 0);
}

TEST_CASE("an exception in a kernel thread is the launch's error") {
  DeviceInts out(8);
  emu::launch(throws_in_kernel, dim3(1), dim3(8), 0, nullptr, out.data);
  const std::string text = last_error_text();
  CHECK(text.find("thread (3,0,0) threw: out of range") != std::string::npos);
}
