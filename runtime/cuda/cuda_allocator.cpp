#include "cuda/cuda_allocator.h"

#include <cstdlib>
#include <string>

#include "cuda/cuda_check.h"
#include "cuda/cuda_guard.h"
#include "cuda/event_pool.h"

namespace tg::cuda {

namespace {

void free_cuda_memory(void* ptr) { caching_allocator().free(ptr); }

class CudaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    check_available("cuda_allocator");
    const DeviceIndex device = current_device();
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(kCUDA, device));
    const auto stream = static_cast<alloc::StreamId>(getCurrentCUDAStream(device).id());
    void* ptr = caching_allocator().allocate(device, nbytes, stream);
    return DataPtr(ptr, ptr, &free_cuda_memory, Device(kCUDA, device));
  }
};

DeviceIndex stats_device(DeviceIndex device, const char* op) { return resolve_device(device, op); }

}  // namespace

CudaMemoryBackend::CudaMemoryBackend() : device_count_(device_count_or_zero()) {}

// Note [Allocating during stream capture]
// A capture in CUDA's default (global) mode forbids cudaMalloc: it is not stream-ordered, so a
// graph could not replay it. A private pool grows during capture all the same: the segment
// outlives every replay (the pool keeps it until its last user is gone), so nothing needs
// replaying. As PyTorch's allocator does, cudaMalloc runs in relaxed mode for this one call.
void* CudaMemoryBackend::raw_malloc(int device, size_t nbytes) {
  const CUDAGuard guard(static_cast<DeviceIndex>(device));
  void* ptr = nullptr;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  TG_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  const cudaError_t status = cudaMalloc(&ptr, nbytes);
  TG_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    return nullptr;
  }
  TG_CUDA_CHECK(status);
  return ptr;
}

void CudaMemoryBackend::raw_free(int device, void* ptr) {
  const CUDAGuard guard(static_cast<DeviceIndex>(device));
  TG_CUDA_CHECK(cudaFree(ptr));
}

alloc::DeviceMemoryInfo CudaMemoryBackend::memory_info(int device) const {
  const CUDAGuard guard(static_cast<DeviceIndex>(device));
  size_t free_bytes = 0, total_bytes = 0;
  TG_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return alloc::DeviceMemoryInfo{free_bytes, total_bytes};
}

alloc::Event CudaMemoryBackend::record_event(int device, alloc::StreamId stream) {
  const CUDAStream cuda_stream(Stream(Device(kCUDA, static_cast<DeviceIndex>(device)), static_cast<Stream::Id>(stream)));
  return EventPool::instance().record(static_cast<DeviceIndex>(device), cuda_stream.stream());
}

bool CudaMemoryBackend::event_done(alloc::Event event) { return EventPool::instance().done(event); }
void CudaMemoryBackend::synchronize_event(alloc::Event event) { EventPool::instance().synchronize(event); }
void CudaMemoryBackend::release_event(alloc::Event event) { EventPool::instance().release(event); }

alloc::CachingAllocator& caching_allocator() {
  check_available("cuda_allocator");
  static alloc::CachingAllocator* allocator = [] {
    const char* config = std::getenv("TG_CUDA_ALLOC_CONF");
    auto* backend = new CudaMemoryBackend();
    return new alloc::CachingAllocator(*backend, parse_allocator_config(config != nullptr ? config : ""));
  }();
  return *allocator;
}

Allocator* cuda_allocator() {
  static CudaAllocator allocator;
  return &allocator;
}

void record_stream(const DataPtr& data, const CUDAStream& stream) {
  if (data.deleter() != &free_cuda_memory || data.get() == nullptr) return;
  TG_CHECK(data.device() == stream.device(), "[record_stream] memory on ", data.device(),
           " cannot be recorded on a stream of ", stream.device());
  caching_allocator().record_stream(data.context(), static_cast<alloc::StreamId>(stream.id()));
}

void record_stream(const TensorBase& tensor, const CUDAStream& stream) {
  TG_CHECK(tensor.defined(), "[record_stream] expected a defined tensor");
  TG_CHECK(tensor.is_cuda(), "[record_stream] expected a CUDA tensor, got one on ", tensor.device());
  record_stream(tensor.storage()->data_ptr(), stream);
}

void empty_cache() {
  if (device_count_or_zero() > 0) caching_allocator().empty_cache();
}

alloc::AllocatorStats memory_stats(DeviceIndex device) {
  return caching_allocator().stats(stats_device(device, "memory_stats"));
}

void reset_peak_memory_stats(DeviceIndex device) {
  caching_allocator().reset_peak_stats(stats_device(device, "reset_peak_memory_stats"));
}

int64_t memory_allocated(DeviceIndex device) { return memory_stats(device).allocated_bytes.current; }
int64_t max_memory_allocated(DeviceIndex device) { return memory_stats(device).allocated_bytes.peak; }
int64_t memory_reserved(DeviceIndex device) { return memory_stats(device).reserved_bytes.current; }
int64_t max_memory_reserved(DeviceIndex device) { return memory_stats(device).reserved_bytes.peak; }

alloc::MemorySnapshot memory_snapshot() { return caching_allocator().snapshot(); }

alloc::CachingAllocatorOptions parse_allocator_config(std::string_view config) {
  alloc::CachingAllocatorOptions options;
  while (!config.empty()) {
    const size_t comma = config.find(',');
    const std::string_view item = config.substr(0, comma);
    config = comma == std::string_view::npos ? std::string_view() : config.substr(comma + 1);
    if (item.empty()) continue;
    const size_t colon = item.find(':');
    const std::string_view key = item.substr(0, colon);
    const std::string value(colon == std::string_view::npos ? std::string_view() : item.substr(colon + 1));
    if (key == "garbage_collection_threshold") {
      char* end = nullptr;
      const double threshold = std::strtod(value.c_str(), &end);
      TG_CHECK_VALUE(!value.empty() && end == value.c_str() + value.size() && threshold >= 0.0 && threshold <= 1.0,
                     "[TG_CUDA_ALLOC_CONF] garbage_collection_threshold must be a number in [0, 1], got '", value, "'");
      options.garbage_collection_threshold = threshold;
    } else {
      TG_THROW(ValueError, "[TG_CUDA_ALLOC_CONF] unknown setting '", key,
               "'; the known one is garbage_collection_threshold");
    }
  }
  return options;
}

}  // namespace tg::cuda
