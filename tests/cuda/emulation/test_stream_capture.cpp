// Stream capture on the emulated device (Note [Emulated stream capture]): work on a capturing
// stream is recorded, not run, and replayed by graph launches; what CUDA forbids during a
// capture fails with CUDA's error codes and invalidates the capture.
#include <doctest/doctest.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>
#include <thread>
#include <vector>

namespace emu = tg::cuda::emu;

namespace stream_capture_test {

__global__ void add_value(int* data, int value) { data[blockIdx.x * blockDim.x + threadIdx.x] += value; }

}  // namespace stream_capture_test

namespace {

struct Stream {
  Stream() { REQUIRE(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, 0) == cudaSuccess); }
  ~Stream() { (void)cudaStreamDestroy(stream); }
  cudaStream_t stream = nullptr;
};

std::vector<int> read(const int* device, size_t n) {
  std::vector<int> host(n);
  REQUIRE(cudaMemcpy(host.data(), device, n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  return host;
}

void fill(int* device, size_t n, int value) {
  std::vector<int> host(n, value);
  REQUIRE(cudaMemcpy(device, host.data(), n * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
}

bool all_equal(const std::vector<int>& values, int expected) {
  for (int v : values) {
    if (v != expected) return false;
  }
  return true;
}

std::string last_error_text() {
  const cudaError_t error = cudaGetLastError();
  return std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
}

}  // namespace

TEST_CASE("stream capture: work on a capturing stream is recorded, not run, and each graph launch replays it") {
  Stream s;
  int* data = nullptr;
  int* copy = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&data), 64 * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&copy), 64 * sizeof(int)) == cudaSuccess);
  fill(data, 64, 7);
  fill(copy, 64, 7);

  const int64_t launches = emu::launch_count(0);
  REQUIRE(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  CHECK(cudaStreamIsCapturing(s.stream, &status) == cudaSuccess);
  CHECK(status == cudaStreamCaptureStatusActive);
  int value = 3;
  CHECK(cudaMemsetAsync(data, 0, 64 * sizeof(int), s.stream) == cudaSuccess);
  emu::launch(stream_capture_test::add_value, dim3(2), dim3(32), 0, s.stream, data, value);
  CHECK(cudaGetLastError() == cudaSuccess);
  value = 100;  // the launch keeps the value it was given
  CHECK(cudaMemcpyAsync(copy, data, 64 * sizeof(int), cudaMemcpyDeviceToDevice, s.stream) == cudaSuccess);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(s.stream, &graph) == cudaSuccess);
  REQUIRE(graph != nullptr);
  CHECK(cudaStreamIsCapturing(s.stream, &status) == cudaSuccess);
  CHECK(status == cudaStreamCaptureStatusNone);

  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes) == cudaSuccess);
  CHECK(nodes == 3);
  CHECK(emu::launch_count(0) == launches);  // nothing ran
  CHECK(all_equal(read(data, 64), 7));
  CHECK(all_equal(read(copy, 64), 7));

  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  CHECK(cudaGraphDestroy(graph) == cudaSuccess);  // the executable graph stands alone
  const int64_t graph_launches = emu::graph_launch_count();
  for (int replay = 1; replay <= 2; ++replay) {
    fill(data, 64, -1);
    CHECK(cudaGraphLaunch(exec, s.stream) == cudaSuccess);
    CHECK(all_equal(read(data, 64), 3));  // memset to 0, then + 3: the order of capture
    CHECK(all_equal(read(copy, 64), 3));
    CHECK(emu::launch_count(0) == launches + replay);
    CHECK(emu::graph_launch_count() == graph_launches + replay);
  }
  // A graph replays on whichever stream it is launched on.
  fill(data, 64, -1);
  CHECK(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  CHECK(all_equal(read(copy, 64), 3));
  CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
  CHECK(cudaFree(data) == cudaSuccess);
  CHECK(cudaFree(copy) == cudaSuccess);
}

TEST_CASE("stream capture: cuBLAS GEMMs on a capturing handle stream are recorded with their scalars") {
  Stream s;
  float* a = nullptr;
  float* c = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&a), 4 * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&c), 4 * sizeof(float)) == cudaSuccess);
  const std::vector<float> identity_twice{2, 0, 0, 2}, zeros(4, 0.0f);
  REQUIRE(cudaMemcpy(a, identity_twice.data(), sizeof(float) * 4, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(c, zeros.data(), sizeof(float) * 4, cudaMemcpyHostToDevice) == cudaSuccess);
  cublasHandle_t handle = nullptr;
  REQUIRE(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS);
  REQUIRE(cublasSetStream(handle, s.stream) == CUBLAS_STATUS_SUCCESS);
  float alpha = 1.0f, beta = 0.0f;
  const long long gemms = emu::cublas_gemm_count();
  REQUIRE(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
  CHECK(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, a, CUDA_R_32F, 2, 4, a,
                                   CUDA_R_32F, 2, 4, &beta, c, CUDA_R_32F, 2, 4, 1, CUBLAS_COMPUTE_32F,
                                   CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS);
  alpha = 10.0f;  // cuBLAS read the host scalar when the call was captured
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(s.stream, &graph) == cudaSuccess);
  CHECK(emu::cublas_gemm_count() == gemms);
  std::vector<float> host(4);
  REQUIRE(cudaMemcpy(host.data(), c, sizeof(float) * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(host == zeros);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  CHECK(cudaGraphLaunch(exec, s.stream) == cudaSuccess);
  CHECK(emu::cublas_gemm_count() == gemms + 1);
  REQUIRE(cudaMemcpy(host.data(), c, sizeof(float) * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(host == std::vector<float>{4, 0, 0, 4});  // (2I)(2I) with alpha 1
  (void)cudaGraphExecDestroy(exec);
  (void)cudaGraphDestroy(graph);
  (void)cublasDestroy(handle);
  (void)cudaFree(a);
  (void)cudaFree(c);
}

TEST_CASE("stream capture: what CUDA forbids during capture fails and invalidates the capture") {
  Stream s;
  int* data = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&data), 64 * sizeof(int)) == cudaSuccess);
  cudaGraph_t graph = nullptr;

  SUBCASE("the legacy stream cannot be captured; a stream is captured once; ending needs a capture") {
    CHECK(cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeGlobal) == cudaErrorStreamCaptureUnsupported);
    REQUIRE(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeGlobal) == cudaErrorIllegalState);
    CHECK(cudaStreamEndCapture(s.stream, &graph) == cudaSuccess);
    CHECK(cudaStreamEndCapture(s.stream, &graph) == cudaErrorStreamCaptureUnmatched);
    (void)cudaGetLastError();
    (void)cudaGraphDestroy(graph);
  }
  SUBCASE("synchronising or querying the capturing stream") {
    REQUIRE(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(cudaStreamSynchronize(s.stream) == cudaErrorStreamCaptureUnsupported);
    CHECK(last_error_text().find("operation not permitted when stream is capturing") != std::string::npos);
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    CHECK(cudaStreamIsCapturing(s.stream, &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusInvalidated);
    // Later work on the stream fails, and runs nothing.
    const int64_t launches = emu::launch_count(0);
    emu::launch(stream_capture_test::add_value, dim3(1), dim3(64), 0, s.stream, data, 1);
    CHECK(cudaGetLastError() == cudaErrorStreamCaptureInvalidated);
    CHECK(cudaMemsetAsync(data, 0, 4, s.stream) == cudaErrorStreamCaptureInvalidated);
    CHECK(emu::launch_count(0) == launches);
    CHECK(cudaStreamEndCapture(s.stream, &graph) == cudaErrorStreamCaptureInvalidated);
    CHECK(graph == nullptr);
    CHECK(last_error_text().find("cudaStreamSynchronize of the capturing stream") != std::string::npos);
    CHECK(cudaStreamQuery(s.stream) == cudaSuccess);  // an ordinary stream again
  }
  SUBCASE("synchronising the device, and querying an event recorded in the capture") {
    cudaEvent_t event = nullptr;
    REQUIRE(cudaEventCreateWithFlags(&event, cudaEventDisableTiming) == cudaSuccess);
    REQUIRE(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(cudaEventRecord(event, s.stream) == cudaSuccess);
    CHECK(cudaEventQuery(event) == cudaErrorStreamCaptureUnsupported);
    CHECK(cudaDeviceSynchronize() == cudaErrorStreamCaptureUnsupported);
    CHECK(cudaStreamEndCapture(s.stream, &graph) == cudaErrorStreamCaptureInvalidated);
    (void)cudaGetLastError();
    CHECK(cudaEventQuery(event) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    (void)cudaEventDestroy(event);
  }
  SUBCASE("unsafe calls under the three capture modes") {
    void* p = nullptr;
    // Global mode: this thread's capture forbids cudaMalloc and a synchronous copy.
    REQUIRE(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHECK(cudaMalloc(&p, 16) == cudaErrorStreamCaptureUnsupported);
    CHECK(cudaStreamEndCapture(s.stream, &graph) == cudaErrorStreamCaptureInvalidated);
    REQUIRE(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    int host = 0;
    CHECK(cudaMemcpy(&host, data, sizeof(int), cudaMemcpyDeviceToHost) == cudaErrorStreamCaptureUnsupported);
    CHECK(cudaStreamEndCapture(s.stream, &graph) == cudaErrorStreamCaptureInvalidated);

    // A thread in relaxed mode may make them; the capture survives.
    REQUIRE(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    REQUIRE(cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess);
    CHECK(mode == cudaStreamCaptureModeGlobal);
    CHECK(cudaMalloc(&p, 16) == cudaSuccess);
    CHECK(cudaFree(p) == cudaSuccess);
    REQUIRE(cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess);
    // Another thread: forbidden by a global capture, unless it is in thread-local mode; and a
    // global capture must end on the thread that began it.
    cudaError_t other_global = cudaSuccess, other_thread_local = cudaSuccess, other_end = cudaSuccess;
    std::thread([&] {
      void* q = nullptr;
      other_global = cudaMalloc(&q, 16);
      cudaStreamCaptureMode thread_local_mode = cudaStreamCaptureModeThreadLocal;
      (void)cudaThreadExchangeStreamCaptureMode(&thread_local_mode);
      other_thread_local = cudaMalloc(&q, 16);
      if (other_thread_local == cudaSuccess) (void)cudaFree(q);
      cudaGraph_t g = nullptr;
      other_end = cudaStreamEndCapture(s.stream, &g);
    }).join();
    CHECK(other_global == cudaErrorStreamCaptureUnsupported);
    CHECK(other_thread_local == cudaSuccess);
    CHECK(other_end == cudaErrorStreamCaptureWrongThread);
    // The other thread's forbidden cudaMalloc invalidated this capture.
    CHECK(cudaStreamEndCapture(s.stream, &graph) == cudaErrorStreamCaptureInvalidated);

    // A thread-local capture leaves other threads free; a relaxed one forbids nothing.
    REQUIRE(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    std::thread([&] {
      void* q = nullptr;
      other_global = cudaMalloc(&q, 16);
      if (other_global == cudaSuccess) (void)cudaFree(q);
    }).join();
    CHECK(other_global == cudaSuccess);
    CHECK(cudaStreamEndCapture(s.stream, &graph) == cudaSuccess);
    (void)cudaGraphDestroy(graph);
    REQUIRE(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeRelaxed) == cudaSuccess);
    CHECK(cudaMalloc(&p, 16) == cudaSuccess);
    CHECK(cudaFree(p) == cudaSuccess);
    CHECK(cudaStreamEndCapture(s.stream, &graph) == cudaSuccess);
    (void)cudaGraphDestroy(graph);
    (void)cudaGetLastError();
  }
  (void)cudaFree(data);
}
