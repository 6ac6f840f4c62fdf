// Kernel launches on the emulated device: launch(kernel, grid, block, shared_bytes, stream,
// args...) is kernel<<<grid, block, shared_bytes, stream>>>(args...) (kernels/cuda/launch.cuh
// spells both). Invariants: the launch configuration is checked as CUDA checks it (an
// invalid one is cudaErrorInvalidConfiguration, no thread runs); the arguments are copied
// once per thread, as each thread of a real launch gets them by value; the launch runs to
// completion before it returns (streams run in order: see runtime_api.h), and a kernel
// failure (a barrier not all threads reach, an exception) is the launch's error, read by
// cudaGetLastError. On a capturing stream the launch is recorded with a copy of its
// arguments instead (Note [Emulated stream capture] in stream_capture.cpp).
// Threading: any host thread may launch; its blocks run on it.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cuda/emulation/runtime_api.h"

namespace tg::cuda::emu {

struct LaunchConfig {
  dim3 grid;
  dim3 block;
  size_t shared_bytes;
  cudaStream_t stream;
  const void* kernel;  // for messages: its symbol names the kernel
};

// Runs thread_body(context) once for every thread of the grid (block_scheduler.cpp).
void run_grid(const LaunchConfig& config, void (*thread_body)(void*), void* context);

// Number of stream captures underway in the process (stream_capture.cpp): launches look at
// the capture table only when it is not zero.
extern std::atomic<int> captures_underway;
bool capture_grid(const LaunchConfig& config, void (*thread_body)(void*), std::shared_ptr<void> context);

template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream,
            Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "a kernel launch passes one argument per parameter");
  struct Launch {
    void (*kernel)(Params...);
    std::tuple<std::decay_t<Params>...> params;
  };
  Launch launch{kernel, std::tuple<std::decay_t<Params>...>(std::forward<Args>(args)...)};
  void (*body)(void*) = [](void* context) {
    const auto* l = static_cast<const Launch*>(context);
    std::apply(l->kernel, l->params);  // copies: each thread gets its own arguments
  };
  const LaunchConfig config{grid, block, shared_bytes, stream, reinterpret_cast<const void*>(kernel)};
  if (captures_underway.load(std::memory_order_acquire) != 0 &&
      capture_grid(config, body, std::make_shared<Launch>(launch))) {
    return;
  }
  run_grid(config, body, &launch);
}

}  // namespace tg::cuda::emu
