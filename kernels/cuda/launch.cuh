// launch_kernel(kernel, grid, block, shared_bytes, stream, args...) is
// kernel<<<grid, block, shared_bytes, stream>>>(args...): the one way the
// kernels launch, so that the same sources also run on the emulated device
// (runtime/cuda/emulation, where the host compiler has no <<<>>>). Follow it
// with TG_CUDA_KERNEL_LAUNCH_CHECK() as before.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace tg::cuda {

#if defined(TG_CUDA_EMULATION)
template <typename... Params, typename... Args>
inline void launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream,
                          Args&&... args) {
  emu::launch(kernel, grid, block, shared_bytes, stream, std::forward<Args>(args)...);
}
#else
template <typename... Params, typename... Args>
inline void launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream,
                          Args&&... args) {
  // clang-format off (it splits the chevrons)
  kernel<<<grid, block, shared_bytes, stream>>>(std::forward<Args>(args)...);
  // clang-format on
}
#endif

}  // namespace tg::cuda
