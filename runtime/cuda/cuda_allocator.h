// The CUDA caching allocator: alloc::CachingAllocator (docs/caching-allocator.md) over
// cudaMalloc, cudaFree and CUDA events, and the tg::Allocator registered for DeviceType::CUDA.
// An allocation is made on the current device and filed under that device's current stream;
// it is reused only by that stream unless record_stream names others (Note [Streams and the
// allocator] in docs/cuda.md). Settings come from TG_CUDA_ALLOC_CONF, PyTorch's
// PYTORCH_CUDA_ALLOC_CONF syntax: "garbage_collection_threshold:0.8".
#pragma once

#include <cstdint>

#include "alloc/caching_allocator.h"
#include "core/allocator.h"
#include "core/tensor_base.h"
#include "cuda/cuda_stream.h"

namespace tg::cuda {

// RawMemoryBackend over the CUDA runtime; a StreamId is a CUDAStream id of the device.
class CudaMemoryBackend final : public alloc::RawMemoryBackend {
 public:
  CudaMemoryBackend();
  int device_count() const override { return device_count_; }
  // cudaMalloc; nullptr (with the error cleared) when the device is out of memory.
  void* raw_malloc(int device, size_t nbytes) override;
  void raw_free(int device, void* ptr) override;
  alloc::DeviceMemoryInfo memory_info(int device) const override;
  alloc::Event record_event(int device, alloc::StreamId stream) override;
  bool event_done(alloc::Event event) override;
  void synchronize_event(alloc::Event event) override;
  void release_event(alloc::Event event) override;

 private:
  int device_count_;
};

// The process-wide caching allocator, made on first use and never destroyed (Note
// [Allocators live forever] in docs/cuda.md). Throws "CUDA is not available" without a GPU.
alloc::CachingAllocator& caching_allocator();
// The tg::Allocator for DeviceType::CUDA.
Allocator* cuda_allocator();

// Marks the memory behind `data` (or `tensor`) as used by `stream` too, so it is not reused
// before the work submitted to `stream` so far is done (Tensor.record_stream in PyTorch).
// Memory the allocator did not make (from_blob) is skipped; a stream of another device than
// the memory's is an error.
void record_stream(const DataPtr& data, const CUDAStream& stream);
void record_stream(const TensorBase& tensor, const CUDAStream& stream);

// torch.cuda's memory functions. `device` -1 is the current device.
void empty_cache();
alloc::AllocatorStats memory_stats(DeviceIndex device = -1);
void reset_peak_memory_stats(DeviceIndex device = -1);
int64_t memory_allocated(DeviceIndex device = -1);
int64_t max_memory_allocated(DeviceIndex device = -1);
int64_t memory_reserved(DeviceIndex device = -1);
int64_t max_memory_reserved(DeviceIndex device = -1);
alloc::MemorySnapshot memory_snapshot();

// Parses an allocator configuration ("garbage_collection_threshold:0.8"; keys separated by
// commas). Throws tg::ValueError naming the unknown key or bad value.
alloc::CachingAllocatorOptions parse_allocator_config(std::string_view config);

}  // namespace tg::cuda
