// The cuBLAS of the emulated device: the calls tensorgen makes, answered on the host. GEMMs
// follow cuBLAS's conventions exactly (column-major, op(A) is m x k, leading dimensions and
// batch strides in elements, C not read when beta is 0) and check their arguments as cuBLAS
// does (CUBLAS_STATUS_INVALID_VALUE), so the wrappers' argument mapping is what is tested.
// float and double go to the CPU BLAS where the build has one. Threading: a handle is used by
// one thread at a time, as in cuBLAS.
#pragma once

#include <cstddef>

#include "cuda/emulation/runtime_api.h"

enum cublasStatus_t : int {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
};
enum cublasOperation_t : int { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 };
enum cublasMath_t : int { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TF32_TENSOR_OP_MATH = 3 };
enum cublasComputeType_t : int {
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
  CUBLAS_COMPUTE_64F = 70,
};
enum cublasGemmAlgo_t : int { CUBLAS_GEMM_DEFAULT = -1 };

namespace tg::cuda::emu {
struct BlasHandle;
}
using cublasHandle_t = tg::cuda::emu::BlasHandle*;

cublasStatus_t cublasCreate(cublasHandle_t* handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t* stream);
cublasStatus_t cublasSetWorkspace(cublasHandle_t handle, void* workspace, size_t bytes);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode);
const char* cublasGetStatusString(cublasStatus_t status);
const char* cublasGetStatusName(cublasStatus_t status);

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                          int m, int n, int k, const void* alpha, const void* a, cudaDataType_t a_type,
                                          int lda, long long stride_a, const void* b, cudaDataType_t b_type, int ldb,
                                          long long stride_b, const void* beta, void* c, cudaDataType_t c_type,
                                          int ldc, long long stride_c, int batch_count,
                                          cublasComputeType_t compute_type, cublasGemmAlgo_t algo);

namespace tg::cuda::emu {
// GEMM calls answered so far (all handles), for tests that a product went through cuBLAS.
long long cublas_gemm_count();
}  // namespace tg::cuda::emu
