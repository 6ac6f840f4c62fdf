// cuBLAS on the emulated device (cublas_shim.h).
#include "cuda/emulation/cublas_shim.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "cuda/emulation/half_types.h"
#include "cuda/emulation/stream_capture.h"

#if defined(TG_HAVE_BLAS)
#include "cpu/blas_gemm.h"  // the host products, on tensorgen's threads (Note [One thread pool])
#endif

namespace tg::cuda::emu {

struct BlasHandle {
  int device;
  cudaStream_t stream = nullptr;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

namespace {

std::atomic<long long> gemm_calls{0};

template <typename T>
double load(const void* base, int64_t index) {
  return static_cast<double>(static_cast<float>(static_cast<const T*>(base)[index]));
}
template <>
[[maybe_unused]] double load<double>(const void* base, int64_t index) {
  return static_cast<const double*>(base)[index];
}
template <typename T>
void store(void* base, int64_t index, double value) {
  static_cast<T*>(base)[index] = static_cast<T>(static_cast<float>(value));
}
template <>
[[maybe_unused]] void store<double>(void* base, int64_t index, double value) {
  static_cast<double*>(base)[index] = value;
}

// Column-major element (row, col) of op(X), X stored with leading dimension ld.
inline int64_t at(bool transposed, int64_t row, int64_t col, int64_t ld) {
  return transposed ? col + row * ld : row + col * ld;
}

template <typename T>
void reference_gemm(bool ta, bool tb, int m, int n, int k, double alpha, const void* a, int lda, const void* b, int ldb,
                    double beta, void* c, int ldc, bool round_to_float) {
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double sum = 0;
      for (int p = 0; p < k; ++p) sum += load<T>(a, at(ta, i, p, lda)) * load<T>(b, at(tb, p, j, ldb));
      if (round_to_float) sum = static_cast<float>(sum);
      double value = alpha * sum;
      if (beta != 0) value += beta * load<T>(c, i + int64_t{j} * ldc);
      store<T>(c, i + int64_t{j} * ldc, value);
    }
  }
}

}  // namespace

long long cublas_gemm_count() { return gemm_calls.load(); }

}  // namespace tg::cuda::emu

using tg::cuda::emu::BlasHandle;

cublasStatus_t cublasCreate(cublasHandle_t* handle) {
  int device = 0;
  (void)cudaGetDevice(&device);
  *handle = new BlasHandle{device};
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (stream != nullptr && tg::cuda::emu::stream_device(stream) != handle->device) return CUBLAS_STATUS_INVALID_VALUE;
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t* stream) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  *stream = handle->stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetWorkspace(cublasHandle_t handle, void* workspace, size_t bytes) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (bytes != 0 && !tg::cuda::emu::is_device_pointer(workspace, handle->device)) return CUBLAS_STATUS_INVALID_VALUE;
  handle->workspace = workspace;
  handle->workspace_bytes = bytes;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->math = mode;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  *mode = handle->math;
  return CUBLAS_STATUS_SUCCESS;
}

const char* cublasGetStatusName(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

const char* cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
  }
  return "unknown error";
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                          int m, int n, int k, const void* alpha, const void* a, cudaDataType_t a_type,
                                          int lda, long long stride_a, const void* b, cudaDataType_t b_type, int ldb,
                                          long long stride_b, const void* beta, void* c, cudaDataType_t c_type,
                                          int ldc, long long stride_c, int batch_count,
                                          cublasComputeType_t compute_type, cublasGemmAlgo_t /*algo*/) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  int device = 0;
  (void)cudaGetDevice(&device);
  const bool ta = transa != CUBLAS_OP_N, tb = transb != CUBLAS_OP_N;
  // cuBLAS's argument rules: op(A) is m x k, so A is stored with (ta ? k : m) rows.
  if (m < 0 || n < 0 || k < 0 || batch_count < 0 || lda < std::max(1, ta ? k : m) ||
      ldb < std::max(1, tb ? n : k) || ldc < std::max(1, m) || a_type != b_type || a_type != c_type ||
      handle->device != device) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  const bool is_double = a_type == CUDA_R_64F;
  if (is_double != (compute_type == CUBLAS_COMPUTE_64F)) return CUBLAS_STATUS_NOT_SUPPORTED;
  if (a_type != CUDA_R_32F && a_type != CUDA_R_64F && a_type != CUDA_R_16F && a_type != CUDA_R_16BF) {
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  const double al = is_double ? *static_cast<const double*>(alpha) : *static_cast<const float*>(alpha);
  const double be = is_double ? *static_cast<const double*>(beta) : *static_cast<const float*>(beta);
  // Every matrix must be device memory of the handle's device.
  const size_t element = is_double ? 8 : a_type == CUDA_R_32F ? 4 : 2;
  auto last_byte = [&](int64_t rows_or_cols, int64_t ld, long long stride) {
    return batch_count == 0 || rows_or_cols == 0 ? size_t{0}
                                                 : ((batch_count - 1) * stride + (rows_or_cols - 1) * ld) * element + 1;
  };
  const void* matrices[3] = {a, b, c};
  const size_t extents[3] = {last_byte(ta ? m : k, lda, stride_a), last_byte(tb ? k : n, ldb, stride_b),
                             last_byte(n, ldc, stride_c)};
  for (int i = 0; i < 3; ++i) {
    if (extents[i] != 0 && (!tg::cuda::emu::is_device_pointer(matrices[i], device) ||
                            !tg::cuda::emu::is_device_pointer(static_cast<const char*>(matrices[i]) + extents[i] - 1,
                                                              device))) {
      return CUBLAS_STATUS_INVALID_VALUE;
    }
  }
  // On a capturing stream the GEMM is recorded, its host scalars by value, as cuBLAS captures
  // them (Note [Emulated stream capture]).
  auto gemm = [=](cudaStream_t) -> cudaError_t {
  ++tg::cuda::emu::gemm_calls;
  for (int batch = 0; batch < batch_count; ++batch) {
    const char* ab = static_cast<const char*>(a) + batch * stride_a * static_cast<long long>(element);
    const char* bb = static_cast<const char*>(b) + batch * stride_b * static_cast<long long>(element);
    char* cb = static_cast<char*>(c) + batch * stride_c * static_cast<long long>(element);
    switch (a_type) {
#if defined(TG_HAVE_BLAS)
      case CUDA_R_32F:
        // Column-major C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T.
        tg::cpu::blas_gemm(tb, ta, n, m, k, static_cast<float>(al), reinterpret_cast<const float*>(bb), ldb,
                           reinterpret_cast<const float*>(ab), lda, static_cast<float>(be),
                           reinterpret_cast<float*>(cb), ldc);
        break;
      case CUDA_R_64F:
        tg::cpu::blas_gemm(tb, ta, n, m, k, al, reinterpret_cast<const double*>(bb), ldb,
                           reinterpret_cast<const double*>(ab), lda, be, reinterpret_cast<double*>(cb), ldc);
        break;
#else
      case CUDA_R_32F:
        tg::cuda::emu::reference_gemm<float>(ta, tb, m, n, k, al, ab, lda, bb, ldb, be, cb, ldc, true);
        break;
      case CUDA_R_64F:
        tg::cuda::emu::reference_gemm<double>(ta, tb, m, n, k, al, ab, lda, bb, ldb, be, cb, ldc, false);
        break;
#endif
      case CUDA_R_16F:
        tg::cuda::emu::reference_gemm<__half>(ta, tb, m, n, k, al, ab, lda, bb, ldb, be, cb, ldc, true);
        break;
      case CUDA_R_16BF:
        tg::cuda::emu::reference_gemm<__nv_bfloat16>(ta, tb, m, n, k, al, ab, lda, bb, ldb, be, cb, ldc, true);
        break;
      default:
        break;  // not reached: the types were checked above
    }
  }
  return cudaSuccess;
  };
  switch (tg::cuda::emu::capture_work(handle->stream, gemm)) {
    case tg::cuda::emu::Enqueue::kCaptured: return CUBLAS_STATUS_SUCCESS;
    case tg::cuda::emu::Enqueue::kFailed: return CUBLAS_STATUS_EXECUTION_FAILED;
    case tg::cuda::emu::Enqueue::kRun: break;
  }
  (void)gemm(handle->stream);
  return CUBLAS_STATUS_SUCCESS;
}
