// The emulated runtime API and cuBLAS check their arguments as the real ones do, so the
// backend's calls are tested for more than their results.
#include <doctest/doctest.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace {

std::string last_error_text() {
  const cudaError_t error = cudaGetLastError();
  return std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
}

}  // namespace

TEST_CASE("copies check that each pointer is on the side its direction names") {
  void* device = nullptr;
  REQUIRE(cudaMalloc(&device, 64) == cudaSuccess);
  std::vector<char> host(64, 1);
  CHECK(cudaMemcpyAsync(device, host.data(), 64, cudaMemcpyHostToDevice, nullptr) == cudaSuccess);
  CHECK(cudaMemcpyAsync(host.data(), device, 64, cudaMemcpyHostToDevice, nullptr) == cudaErrorInvalidValue);
  CHECK(last_error_text().find("is not inside one device allocation") != std::string::npos);
  // Past the end of the allocation (512 bytes after rounding).
  CHECK(cudaMemcpyAsync(static_cast<char*>(device) + 500, host.data(), 64, cudaMemcpyHostToDevice, nullptr) ==
        cudaErrorInvalidValue);
  CHECK(cudaMemcpyAsync(host.data(), device, 64, cudaMemcpyDeviceToHost, nullptr) == cudaSuccess);
  CHECK(cudaFree(host.data()) == cudaErrorInvalidValue);
  (void)cudaGetLastError();
  CHECK(cudaFree(device) == cudaSuccess);
  CHECK(cudaFree(device) == cudaErrorInvalidValue);  // double free
  (void)cudaGetLastError();
}

TEST_CASE("device memory has a capacity; running past it is cudaErrorMemoryAllocation") {
  size_t free_bytes = 0, total = 0;
  REQUIRE(cudaMemGetInfo(&free_bytes, &total) == cudaSuccess);
  void* p = nullptr;
  CHECK(cudaMalloc(&p, total + 1) == cudaErrorMemoryAllocation);
  CHECK(p == nullptr);
  CHECK(cudaGetLastError() == cudaErrorMemoryAllocation);
}

TEST_CASE("a stream belongs to its device: launches and events elsewhere are errors") {
  int count = 0;
  REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  if (count < 2) {
    MESSAGE("skipped: needs two emulated devices (TG_EMU_DEVICE_COUNT)");
    return;
  }
  REQUIRE(cudaSetDevice(1) == cudaSuccess);
  cudaStream_t on_one = nullptr;
  REQUIRE(cudaStreamCreateWithPriority(&on_one, cudaStreamNonBlocking, 0) == cudaSuccess);
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  cudaEvent_t event = nullptr;
  REQUIRE(cudaEventCreateWithFlags(&event, cudaEventDisableTiming) == cudaSuccess);
  CHECK(cudaEventRecord(event, on_one) == cudaErrorInvalidResourceHandle);
  CHECK(last_error_text().find("belongs to device 0, the stream to device 1") != std::string::npos);
  CHECK(cudaEventRecord(event, nullptr) == cudaSuccess);
  CHECK(cudaEventQuery(event) == cudaSuccess);
  CHECK(cudaEventDestroy(event) == cudaSuccess);
  CHECK(cudaEventQuery(event) == cudaErrorInvalidResourceHandle);
  (void)cudaGetLastError();
  CHECK(cudaStreamDestroy(on_one) == cudaSuccess);
}

TEST_CASE("cuBLAS GEMM: column-major, transposes, leading dimensions, strided batches") {
  // Two batches of C (2x3) = A^T (2x4) * B (4x3), A stored 4x2 with lda 5, B 4x3 with ldb 4,
  // C with ldc 2; alpha 2, beta 1 over C = 1.
  const int m = 2, n = 3, k = 4, lda = 5, ldb = 4, ldc = 2, batches = 2;
  const long long sa = lda * m, sb = ldb * n, sc = ldc * n;
  std::vector<float> a(static_cast<size_t>(sa * batches)), b(static_cast<size_t>(sb * batches)),
      c(static_cast<size_t>(sc * batches), 1.0f);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 7) - 3;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 5) - 2;
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&da), a.size() * 4) == cudaSuccess);
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&db), b.size() * 4) == cudaSuccess);
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&dc), c.size() * 4) == cudaSuccess);
  REQUIRE(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess);
  cublasHandle_t handle = nullptr;
  REQUIRE(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS);
  const float alpha = 2, beta = 1;
  const long long before = tg::cuda::emu::cublas_gemm_count();
  REQUIRE(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, da, CUDA_R_32F, lda, sa, db,
                                     CUDA_R_32F, ldb, sb, &beta, dc, CUDA_R_32F, ldc, sc, batches, CUBLAS_COMPUTE_32F,
                                     CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS);
  CHECK(tg::cuda::emu::cublas_gemm_count() == before + 1);
  std::vector<float> got(c.size());
  REQUIRE(cudaMemcpy(got.data(), dc, got.size() * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int batch = 0; batch < batches; ++batch) {
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < m; ++i) {
        float sum = 0;
        for (int p = 0; p < k; ++p) sum += a[static_cast<size_t>(batch * sa + p + i * lda)] * b[static_cast<size_t>(batch * sb + p + j * ldb)];
        CHECK(got[static_cast<size_t>(batch * sc + i + j * ldc)] == doctest::Approx(2 * sum + 1));
      }
    }
  }
  // lda smaller than the rows A is stored with (k, transposed) is rejected, as by cuBLAS.
  CHECK(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, da, CUDA_R_32F, 3, sa, db,
                                   CUDA_R_32F, ldb, sb, &beta, dc, CUDA_R_32F, ldc, sc, batches, CUBLAS_COMPUTE_32F,
                                   CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_INVALID_VALUE);
  // Host memory is not a device operand.
  CHECK(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, a.data(), CUDA_R_32F, lda, sa,
                                   db, CUDA_R_32F, ldb, sb, &beta, dc, CUDA_R_32F, ldc, sc, batches,
                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(cublasDestroy(handle) == CUBLAS_STATUS_SUCCESS);
  (void)cudaFree(da);
  (void)cudaFree(db);
  (void)cudaFree(dc);
}

TEST_CASE("a held stream and the events recorded on it during the hold answer 'not ready'") {
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, 0) == cudaSuccess);
  cudaEvent_t before = nullptr, during = nullptr, other = nullptr;
  REQUIRE(cudaEventCreateWithFlags(&before, cudaEventDisableTiming) == cudaSuccess);
  REQUIRE(cudaEventCreateWithFlags(&during, cudaEventDisableTiming) == cudaSuccess);
  REQUIRE(cudaEventCreateWithFlags(&other, cudaEventDisableTiming) == cudaSuccess);
  REQUIRE(cudaEventRecord(before, stream) == cudaSuccess);
  tg::cuda::emu::hold_stream(stream);
  REQUIRE(cudaEventRecord(during, stream) == cudaSuccess);
  REQUIRE(cudaEventRecord(other, nullptr) == cudaSuccess);  // the default stream is not held
  CHECK(cudaEventQuery(before) == cudaSuccess);
  CHECK(cudaEventQuery(during) == cudaErrorNotReady);
  CHECK(cudaGetLastError() == cudaErrorNotReady);  // as the real runtime, a query sets the last error
  CHECK(cudaStreamQuery(stream) == cudaErrorNotReady);
  (void)cudaGetLastError();
  CHECK(cudaEventQuery(other) == cudaSuccess);
  tg::cuda::emu::release_stream(stream);
  CHECK(cudaEventQuery(during) == cudaSuccess);
  CHECK(cudaStreamQuery(stream) == cudaSuccess);
  // A new hold does not reach back to events of an earlier one; a host wait catches up.
  tg::cuda::emu::hold_stream(stream);
  CHECK(cudaEventQuery(during) == cudaSuccess);
  REQUIRE(cudaEventRecord(during, stream) == cudaSuccess);
  CHECK(cudaEventQuery(during) == cudaErrorNotReady);
  (void)cudaGetLastError();
  CHECK(cudaEventSynchronize(during) == cudaSuccess);
  CHECK(cudaEventQuery(during) == cudaSuccess);
  CHECK(cudaStreamQuery(stream) == cudaSuccess);
  tg::cuda::emu::hold_stream(stream);
  CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
  CHECK(cudaStreamQuery(stream) == cudaSuccess);
  // Only created streams can be held.
  tg::cuda::emu::hold_stream(nullptr);
  CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
  for (cudaEvent_t event : {before, during, other}) CHECK(cudaEventDestroy(event) == cudaSuccess);
  CHECK(cudaStreamDestroy(stream) == cudaSuccess);
}
