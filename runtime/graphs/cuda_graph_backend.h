// The CUDA backend of tg::graphs::Graph: a capture of the current CUDA stream into a CUDA graph
// (cudaStreamBeginCapture, cudaStreamEndCapture, cudaGraphInstantiate) and its replay
// (cudaGraphLaunch), over a private pool of the CUDA caching allocator, as PyTorch's
// at::cuda::CUDAGraph. See Note [CUDA graph capture]. Compiled from cuda_graph_backend.cpp in
// builds with CUDA (real or emulated); elsewhere cuda_graph_backend_stub.cpp makes every entry
// point raise a clear tg::Error. This header names no CUDA type, so the rest of tg::graphs
// builds the same way everywhere.
// Invariants: between capture_begin and capture_end, allocations on the capture stream come
// from the pool and the stream is capturing; replay requires an instantiated graph.
// Threading: capture_begin and capture_end on one thread (CUDA's global capture mode).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "alloc/caching_allocator.h"
#include "core/device.h"

namespace tg::graphs::detail {

// The caching allocator that CUDA pools live in. Throws when the build has no CUDA.
alloc::CachingAllocator& cuda_pool_allocator();
// `device` with its index resolved (-1: the current device). Throws tg::Error when the build
// has no CUDA or the machine no such device.
Device resolve_cuda_device(Device device, const char* op);

// The id of a stream taken from `device`'s pool, for an owner that captures all its graphs on
// one stream (a graph tree: the caching allocator reuses a pool's free blocks per stream).
int64_t reserve_side_stream(Device device);

// torch.cuda.graph's side stream: for a CUDA device, waits for the device, then makes a pool
// stream (`stream_id` from reserve_side_stream, or -1: the next one) current until the scope
// ends, when it waits for the device again; nothing on the CPU. Warm-up and capture run inside
// it, so that the capture never meets the default stream.
class SideStreamScope {
 public:
  explicit SideStreamScope(Device device, int64_t stream_id = -1);
  ~SideStreamScope();
  SideStreamScope(const SideStreamScope&) = delete;
  SideStreamScope& operator=(const SideStreamScope&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class CudaGraphBackend {
 public:
  // Throws tg::Error when the build has no CUDA or the machine no such device.
  explicit CudaGraphBackend(Device device);
  ~CudaGraphBackend();
  CudaGraphBackend(const CudaGraphBackend&) = delete;
  CudaGraphBackend& operator=(const CudaGraphBackend&) = delete;

  // Begins capturing the device's current stream (not the default stream) into `pool`.
  void capture_begin(alloc::MempoolId pool);
  // Ends the capture and instantiates the graph; throws tg::Error, with the pool routing
  // undone, when CUDA invalidated the capture.
  void capture_end();
  // Launches the graph on the device's current stream.
  void replay() const;
  bool capturing() const;
  size_t num_nodes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tg::graphs::detail
