#include "graphs/host_memory_backend.h"

#include <cstdlib>
#include <new>

#include "core/allocator.h"
#include "core/error.h"

namespace tg::graphs {

namespace {

// The segment's size sits in the 64 bytes before the pointer handed out, so raw_free knows
// how much it gives back without a map.
constexpr size_t kHeader = kCpuAlignment;

void check_device(int device, const char* op) {
  TG_CHECK_INDEX(device == 0, "[HostMemoryBackend::", op, "] the host is device 0, got device ", device);
}

}  // namespace

HostMemoryBackend::HostMemoryBackend(size_t capacity) : capacity_(capacity) {}

void* HostMemoryBackend::raw_malloc(int device, size_t nbytes) {
  check_device(device, "raw_malloc");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (nbytes > capacity_ - in_use_) return nullptr;
    in_use_ += nbytes;
  }
  void* memory = nullptr;
  if (posix_memalign(&memory, kCpuAlignment, nbytes + kHeader) != 0 || memory == nullptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    in_use_ -= nbytes;
    return nullptr;
  }
  *static_cast<size_t*>(memory) = nbytes;
  return static_cast<char*>(memory) + kHeader;
}

void HostMemoryBackend::raw_free(int device, void* ptr) {
  check_device(device, "raw_free");
  char* memory = static_cast<char*>(ptr) - kHeader;
  const size_t nbytes = *reinterpret_cast<size_t*>(memory);
  std::free(memory);
  std::lock_guard<std::mutex> lock(mutex_);
  in_use_ -= nbytes;
}

alloc::DeviceMemoryInfo HostMemoryBackend::memory_info(int device) const {
  check_device(device, "memory_info");
  std::lock_guard<std::mutex> lock(mutex_);
  return {capacity_ - in_use_, capacity_};
}

alloc::Event HostMemoryBackend::record_event(int device, alloc::StreamId) {
  check_device(device, "record_event");
  return alloc::Event{0};
}

}  // namespace tg::graphs
