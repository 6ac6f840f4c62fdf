// The pinned host memory allocator (PyTorch's CachingHostAllocator): the caching core of
// alloc/ over cudaHostAlloc, with a single device, the host. Pinned (page-locked) memory is
// what cudaMemcpyAsync copies without staging, so copies from and to it overlap host work.
// Host allocations are filed under kHostStream and shared by all host code. An asynchronous
// copy that uses a block calls record_host_use(data, stream); when the block is freed the
// core records an event on that stream and reuses the block only once the copy is done.
#pragma once

#include "alloc/caching_allocator.h"
#include "core/allocator.h"
#include "core/tensor_base.h"
#include "cuda/cuda_stream.h"

namespace tg::cuda {

// The stream id of host allocations; CUDA streams are encoded as ((device + 1) << 32) | id.
inline constexpr alloc::StreamId kHostStream = 0;

class PinnedMemoryBackend final : public alloc::RawMemoryBackend {
 public:
  int device_count() const override { return 1; }
  // cudaHostAlloc (portable: usable from every device's context); nullptr when it fails for lack of memory.
  void* raw_malloc(int device, size_t nbytes) override;
  void raw_free(int device, void* ptr) override;
  // The host's physical memory (total) and what is available now.
  alloc::DeviceMemoryInfo memory_info(int device) const override;
  alloc::Event record_event(int device, alloc::StreamId stream) override;
  bool event_done(alloc::Event event) override;
  void synchronize_event(alloc::Event event) override;
  void release_event(alloc::Event event) override;
};

// The process-wide pinned caching allocator (never destroyed). Throws "CUDA is not available"
// without a GPU: pinning needs the driver.
alloc::CachingAllocator& pinned_caching_allocator();
// A tg::Allocator of pinned CPU memory (its DataPtrs are on the CPU).
Allocator* pinned_allocator();
// Throws "CUDA is not available: [op] pin_memory=true ..." when there is no device to pin
// with: the check the core's pinned_memory_allocator() makes (cuda_hooks.cpp).
void check_can_pin(std::string_view op);

bool is_pinned(const DataPtr& data);
bool is_pinned(const TensorBase& tensor);
// Marks pinned memory as used by work submitted to `stream`; does nothing for other memory.
void record_host_use(const DataPtr& data, const CUDAStream& stream);

void empty_host_cache();
alloc::AllocatorStats host_memory_stats();

}  // namespace tg::cuda
