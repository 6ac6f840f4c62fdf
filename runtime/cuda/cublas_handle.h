// cuBLAS handles: one per thread, device and stream, made on first use, each with its own
// workspace from the caching allocator on that stream (so cuBLAS never allocates during a
// call, and a workspace is never shared by two streams). The handle comes back with its
// stream and math mode set. TF32 (tensor-core float32 products with a 10-bit mantissa) is
// off by default, as in PyTorch's torch.backends.cuda.matmul.allow_tf32.
#pragma once

#include <cublas_v2.h>

#include "cuda/cuda_stream.h"

namespace tg::cuda {

// The handle for the current device and its current stream.
cublasHandle_t getCurrentCUDABlasHandle();

// Whether float32 products may use TF32 tensor cores. Process-wide; read at each product.
bool allow_tf32();
void set_allow_tf32(bool allow);

// The workspace size given to each handle: 32 MiB on compute capability 9.x (Hopper), 4 MiB
// elsewhere (cuBLAS's own recommendations).
size_t cublas_workspace_size(DeviceIndex device);

}  // namespace tg::cuda
