// The CUDA backend of tg::graphs::Graph (cuda_graph_backend.h), for real CUDA and the emulated
// device alike: the same calls, answered by the GPU's runtime or by runtime/cuda/emulation.
#include "graphs/cuda_graph_backend.h"

#include <cuda_runtime_api.h>

#include "core/error.h"
#include "cuda/cuda_allocator.h"
#include "cuda/cuda_check.h"
#include "cuda/cuda_device.h"
#include "cuda/cuda_guard.h"
#include "cuda/cuda_stream.h"

// Note [CUDA graph capture]
// As PyTorch's CUDAGraph (aten/src/ATen/cuda/CUDAGraph.cpp):
// - capture_begin: the capture stream is the device's current stream, which must not be the
//   default (legacy) stream, which CUDA cannot capture. Allocations on that stream are routed
//   to the graph's private pool (begin_allocate_to_pool: PyTorch's beginAllocateToPool), then
//   cudaStreamBeginCapture in global mode, the strictest: a synchronisation, a copy to the host,
//   item(), or a cudaMalloc in the captured region fails with cudaErrorStreamCaptureUnsupported
//   and invalidates the capture. The pool grows during capture all the same: the allocator
//   calls cudaMalloc in relaxed mode (Note [Allocating during stream capture]).
// - capture_end: cudaStreamEndCapture on the same stream, the routing ends, and the graph is
//   instantiated; an invalidated capture becomes one tg::Error naming the likely causes.
// - replay: cudaGraphLaunch on the device's current stream. Inputs are read from, and outputs
//   written to, the addresses the capture used: copy new inputs into the captured tensors.
// - Warm-up: run the region once on the capture stream before capturing it, so that lazy
//   initialisation (a cuBLAS handle and its workspace, per thread and stream) happens outside.
// Only work on the capture stream is recorded; host (CPU) work in the region runs once, at
// capture, and is not replayed, as in PyTorch.

namespace tg::graphs::detail {

alloc::CachingAllocator& cuda_pool_allocator() { return cuda::caching_allocator(); }

Device resolve_cuda_device(Device device, const char* op) {
  cuda::check_available(op);
  return Device(DeviceType::CUDA, cuda::resolve_device(device.has_index() ? device.index() : -1, op));
}

struct SideStreamScope::Impl {
  Impl(cuda::DeviceIndex index, cuda::CUDAStream stream) : device(index), guard(stream) {}
  cuda::DeviceIndex device;
  cuda::CUDAStreamGuard guard;
};

int64_t reserve_side_stream(Device device) {
  const Device resolved = resolve_cuda_device(device, "graphs");
  return cuda::getStreamFromPool(false, resolved.index()).id();
}

SideStreamScope::SideStreamScope(Device device, int64_t stream_id) {
  if (!device.is_cuda()) return;
  const Device resolved = resolve_cuda_device(device, "graphs");
  cuda::synchronize(resolved.index());
  const cuda::CUDAStream stream = stream_id >= 0 ? cuda::CUDAStream(Stream(resolved, stream_id))
                                                 : cuda::getStreamFromPool(false, resolved.index());
  impl_ = std::make_unique<Impl>(resolved.index(), stream);
}

SideStreamScope::~SideStreamScope() {
  if (!impl_) return;
  const cuda::DeviceIndex device = impl_->device;
  impl_.reset();
  try {
    cuda::synchronize(device);
  } catch (const Error&) {  // a destructor must not throw; the next CUDA call reports the failure
  }
}

struct CudaGraphBackend::Impl {
  cuda::DeviceIndex device;
  cuda::CUDAStream capture_stream;
  alloc::MempoolId pool;
  bool capturing = false;
  cudaGraphExec_t exec = nullptr;
  size_t num_nodes = 0;
};

CudaGraphBackend::CudaGraphBackend(Device device) {
  const Device resolved = resolve_cuda_device(device, "graphs::Graph");
  impl_ = std::make_unique<Impl>(Impl{resolved.index(), cuda::getDefaultCUDAStream(resolved.index()), {}});
}

CudaGraphBackend::~CudaGraphBackend() {
  if (impl_->capturing) {
    // Destroyed mid-capture (an exception left the region): end it so the stream is usable.
    cudaGraph_t graph = nullptr;
    if (cudaStreamEndCapture(impl_->capture_stream, &graph) == cudaSuccess && graph != nullptr) {
      (void)cudaGraphDestroy(graph);
    }
    (void)cudaGetLastError();
    cuda_pool_allocator().end_allocate_to_pool(impl_->device, static_cast<alloc::StreamId>(impl_->capture_stream.id()));
  }
  if (impl_->exec != nullptr) (void)cudaGraphExecDestroy(impl_->exec);
}

void CudaGraphBackend::capture_begin(alloc::MempoolId pool) {
  const cuda::CUDAGuard guard(impl_->device);
  const cuda::CUDAStream stream = cuda::getCurrentCUDAStream(impl_->device);
  TG_CHECK(stream != cuda::getDefaultCUDAStream(impl_->device),
           "[Graph::capture_begin] the current stream of cuda:", static_cast<int>(impl_->device),
           " is its default stream, which CUDA cannot capture: make another stream current first "
           "(tg::cuda::CUDAStreamGuard guard(tg::cuda::getStreamFromPool())), and run the warm-up on it too");
  const auto stream_id = static_cast<alloc::StreamId>(stream.id());
  cuda_pool_allocator().begin_allocate_to_pool(impl_->device, pool, stream_id);
  const cudaError_t status = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  if (status != cudaSuccess) {
    cuda_pool_allocator().end_allocate_to_pool(impl_->device, stream_id);
    TG_CUDA_CHECK(status);
  }
  impl_->capture_stream = stream;
  impl_->pool = pool;
  impl_->capturing = true;
}

void CudaGraphBackend::capture_end() {
  TG_INTERNAL_ASSERT(impl_->capturing);
  const cuda::CUDAGuard guard(impl_->device);
  TG_CHECK(cuda::getCurrentCUDAStream(impl_->device) == impl_->capture_stream,
           "[Graph::capture_end] the capture began on ", impl_->capture_stream, " but ",
           cuda::getCurrentCUDAStream(impl_->device), " is current: end it on the stream it began on");
  cudaGraph_t graph = nullptr;
  const cudaError_t status = cudaStreamEndCapture(impl_->capture_stream, &graph);
  impl_->capturing = false;
  cuda_pool_allocator().end_allocate_to_pool(impl_->device, static_cast<alloc::StreamId>(impl_->capture_stream.id()));
  if (status == cudaErrorStreamCaptureInvalidated) {
    const char* detail = cudaGetErrorString(status);
    (void)cudaGetLastError();
    TG_CHECK(false, "[Graph::capture_end] CUDA invalidated the capture (", detail,
             "): the captured region did something CUDA forbids while a stream is capturing: a "
             "synchronisation, a copy to the host or reading a value (item(), printing), or a raw cudaMalloc or "
             "cudaFree. Move it out of the region, and warm up before capturing so that lazy initialisation "
             "runs outside");
  }
  TG_CUDA_CHECK(status);
  size_t nodes = 0;
  const cudaError_t counted = cudaGraphGetNodes(graph, nullptr, &nodes);
  const cudaError_t instantiated = cudaGraphInstantiateWithFlags(&impl_->exec, graph, 0);
  (void)cudaGraphDestroy(graph);  // the executable graph is all replay needs
  TG_CUDA_CHECK(counted);
  TG_CUDA_CHECK(instantiated);
  impl_->num_nodes = nodes;
}

void CudaGraphBackend::replay() const {
  TG_INTERNAL_ASSERT(impl_->exec != nullptr);
  const cuda::CUDAGuard guard(impl_->device);
  TG_CUDA_CHECK(cudaGraphLaunch(impl_->exec, cuda::getCurrentCUDAStream(impl_->device)));
}

bool CudaGraphBackend::capturing() const { return impl_->capturing; }

size_t CudaGraphBackend::num_nodes() const { return impl_->num_nodes; }

}  // namespace tg::graphs::detail
