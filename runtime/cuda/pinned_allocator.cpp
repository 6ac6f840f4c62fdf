#include "cuda/pinned_allocator.h"

#include <unistd.h>

#include "cuda/cuda_check.h"
#include "cuda/event_pool.h"

namespace tg::cuda {

namespace {

void free_pinned_memory(void* ptr) { pinned_caching_allocator().free(ptr); }

class PinnedAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(kCPU));
    void* ptr = pinned_caching_allocator().allocate(0, nbytes, kHostStream);
    return DataPtr(ptr, ptr, &free_pinned_memory, Device(kCPU));
  }
};

alloc::StreamId encode(const CUDAStream& stream) {
  return (static_cast<alloc::StreamId>(stream.device_index() + 1) << 32) | static_cast<alloc::StreamId>(stream.id());
}

CUDAStream decode(alloc::StreamId id) {
  const auto device = static_cast<DeviceIndex>((id >> 32) - 1);
  return CUDAStream(Stream(Device(kCUDA, device), static_cast<Stream::Id>(id & 0xffffffffu)));
}

}  // namespace

void* PinnedMemoryBackend::raw_malloc(int /*device*/, size_t nbytes) {
  void* ptr = nullptr;
  const cudaError_t status = cudaHostAlloc(&ptr, nbytes, cudaHostAllocPortable);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    return nullptr;
  }
  TG_CUDA_CHECK(status);
  return ptr;
}

void PinnedMemoryBackend::raw_free(int /*device*/, void* ptr) { TG_CUDA_CHECK(cudaFreeHost(ptr)); }

alloc::DeviceMemoryInfo PinnedMemoryBackend::memory_info(int /*device*/) const {
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return alloc::DeviceMemoryInfo{static_cast<size_t>(sysconf(_SC_AVPHYS_PAGES)) * page,
                                 static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * page};
}

alloc::Event PinnedMemoryBackend::record_event(int /*device*/, alloc::StreamId stream) {
  TG_INTERNAL_ASSERT(stream != kHostStream, "the host stream has no events");
  const CUDAStream cuda_stream = decode(stream);
  return EventPool::instance().record(cuda_stream.device_index(), cuda_stream.stream());
}

bool PinnedMemoryBackend::event_done(alloc::Event event) { return EventPool::instance().done(event); }
void PinnedMemoryBackend::synchronize_event(alloc::Event event) { EventPool::instance().synchronize(event); }
void PinnedMemoryBackend::release_event(alloc::Event event) { EventPool::instance().release(event); }

alloc::CachingAllocator& pinned_caching_allocator() {
  check_available("pinned_allocator");
  static alloc::CachingAllocator* allocator = new alloc::CachingAllocator(*new PinnedMemoryBackend());
  return *allocator;
}

Allocator* pinned_allocator() {
  static PinnedAllocator allocator;
  return &allocator;
}

void check_can_pin(std::string_view op) {
  TG_CHECK(device_count_or_zero() > 0, "CUDA is not available: [", op, "] pin_memory=true asks for pinned ",
           "(page-locked) host memory, which the CUDA driver provides only with a device, but ",
           unavailable_reason(), "; leave pin_memory unset for ordinary CPU memory");
}

bool is_pinned(const DataPtr& data) { return data.deleter() == &free_pinned_memory; }

bool is_pinned(const TensorBase& tensor) {
  return tensor.defined() && tensor.is_cpu() && is_pinned(tensor.storage()->data_ptr());
}

void record_host_use(const DataPtr& data, const CUDAStream& stream) {
  if (is_pinned(data) && data.get() != nullptr) pinned_caching_allocator().record_stream(data.context(), encode(stream));
}

void empty_host_cache() {
  if (device_count_or_zero() > 0) pinned_caching_allocator().empty_cache();
}

alloc::AllocatorStats host_memory_stats() { return pinned_caching_allocator().stats(0); }

}  // namespace tg::cuda
