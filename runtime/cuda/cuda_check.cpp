#include "cuda/cuda_check.h"

namespace tg::cuda::detail {

void cuda_call_failed(cudaError_t error, const char* call, SourceLocation location) {
  // Clears the error if it is not sticky, so that the next call does not report it again.
  (void)cudaGetLastError();
  std::string message = ::tg::detail::str("[CUDA] ", call, " failed: ", cudaGetErrorString(error), " (", cudaGetErrorName(error), ")");
  if (error == cudaErrorMemoryAllocation) throw OutOfMemoryError(std::move(message), location);
  throw Error(std::move(message), location);
}

void cublas_call_failed(cublasStatus_t status, const char* call, SourceLocation location) {
  std::string message = ::tg::detail::str("[cuBLAS] ", call, " failed: ", cublasGetStatusString(status), " (",
                            cublasGetStatusName(status), ")");
  if (status == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemoryError(std::move(message), location);
  throw Error(std::move(message), location);
}

}  // namespace tg::cuda::detail
