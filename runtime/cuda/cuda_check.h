// Error checks for the CUDA runtime and cuBLAS. A failing call becomes a tg::Error that names
// the call and the library's message (tg::OutOfMemoryError for an allocation failure):
//
//   TG_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, kind, stream));
//   -> "[CUDA] cudaMemcpyAsync(dst, src, n, kind, stream) failed: invalid argument
//       (cudaErrorInvalidValue) (at copy.cpp:42)"
//
// TG_CUDA_KERNEL_LAUNCH_CHECK() after a <<<...>>> launch reports a bad launch configuration.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "core/error.h"

namespace tg::cuda::detail {

[[noreturn]] [[gnu::cold]] void cuda_call_failed(cudaError_t error, const char* call, SourceLocation location);
[[noreturn]] [[gnu::cold]] void cublas_call_failed(cublasStatus_t status, const char* call, SourceLocation location);

}  // namespace tg::cuda::detail

#define TG_CUDA_CHECK(call)                                                                \
  do {                                                                                     \
    const cudaError_t tg_cuda_status_ = (call);                                            \
    if (__builtin_expect(tg_cuda_status_ != cudaSuccess, 0)) {                             \
      ::tg::cuda::detail::cuda_call_failed(tg_cuda_status_, #call, TG_SOURCE_LOCATION);    \
    }                                                                                      \
  } while (false)

#define TG_CUBLAS_CHECK(call)                                                              \
  do {                                                                                     \
    const cublasStatus_t tg_cublas_status_ = (call);                                       \
    if (__builtin_expect(tg_cublas_status_ != CUBLAS_STATUS_SUCCESS, 0)) {                 \
      ::tg::cuda::detail::cublas_call_failed(tg_cublas_status_, #call, TG_SOURCE_LOCATION); \
    }                                                                                      \
  } while (false)

#define TG_CUDA_KERNEL_LAUNCH_CHECK() TG_CUDA_CHECK(cudaGetLastError())
