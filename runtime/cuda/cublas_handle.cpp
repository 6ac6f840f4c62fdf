#include "cuda/cublas_handle.h"

#include <atomic>
#include <map>
#include <utility>

#include "cuda/cuda_allocator.h"
#include "cuda/cuda_check.h"
#include "cuda/cuda_guard.h"

namespace tg::cuda {

namespace {

std::atomic<bool> g_allow_tf32{false};

struct HandleEntry {
  cublasHandle_t handle = nullptr;
  DataPtr workspace;  // from the caching allocator, on the handle's stream
};

// This thread's handles by (device, stream id). Destroyed when the thread ends; the main
// thread's go before static objects, while CUDA is still up.
class ThreadHandles {
 public:
  ~ThreadHandles() {
    for (auto& [key, entry] : entries_) {
      int previous = -1;
      const bool switch_device = cudaGetDevice(&previous) == cudaSuccess && previous != key.first;
      if (switch_device) (void)cudaSetDevice(key.first);
      (void)cublasDestroy(entry.handle);
      if (switch_device) (void)cudaSetDevice(previous);
      (void)cudaGetLastError();
    }
  }

  HandleEntry& get(const CUDAStream& stream) {
    auto key = std::make_pair(static_cast<int>(stream.device_index()), stream.id());
    auto it = entries_.find(key);
    if (it != entries_.end()) return it->second;
    const CUDAGuard guard(stream.device_index());
    HandleEntry entry;
    TG_CUBLAS_CHECK(cublasCreate(&entry.handle));
    try {
      TG_CUBLAS_CHECK(cublasSetStream(entry.handle, stream));
      const size_t size = cublas_workspace_size(stream.device_index());
      // The workspace is filed under the handle's stream: allocate it with that stream current.
      const CUDAStreamGuard stream_guard(stream);
      entry.workspace = cuda_allocator()->allocate(size);
      TG_CUBLAS_CHECK(cublasSetWorkspace(entry.handle, entry.workspace.get(), size));
    } catch (...) {
      (void)cublasDestroy(entry.handle);
      throw;
    }
    return entries_.emplace(key, std::move(entry)).first->second;
  }

 private:
  std::map<std::pair<int, Stream::Id>, HandleEntry> entries_;
};

}  // namespace

cublasHandle_t getCurrentCUDABlasHandle() {
  thread_local ThreadHandles handles;
  const CUDAStream stream = getCurrentCUDAStream();
  HandleEntry& entry = handles.get(stream);
  TG_CUBLAS_CHECK(cublasSetMathMode(entry.handle, allow_tf32() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  return entry.handle;
}

bool allow_tf32() { return g_allow_tf32.load(std::memory_order_relaxed); }
void set_allow_tf32(bool allow) { g_allow_tf32.store(allow, std::memory_order_relaxed); }

size_t cublas_workspace_size(DeviceIndex device) {
  constexpr size_t kMiB = size_t{1} << 20;
  return device_properties(device).major >= 9 ? 32 * kMiB : 4 * kMiB;
}

}  // namespace tg::cuda
