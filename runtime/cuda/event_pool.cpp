#include "cuda/event_pool.h"

#include <memory>
#include <mutex>
#include <vector>

#include "cuda/cuda_check.h"
#include "cuda/cuda_guard.h"

namespace tg::cuda {

namespace {

struct PooledEvent {
  cudaEvent_t event = nullptr;
  DeviceIndex device = 0;
};

struct DeviceEvents {
  std::mutex mutex;                  // guards free_events
  std::vector<PooledEvent*> free_events;
};

DeviceEvents& events_of(DeviceIndex device) {
  static std::unique_ptr<DeviceEvents[]> devices(new DeviceEvents[static_cast<size_t>(device_count_or_zero())]);
  return devices[static_cast<size_t>(device)];
}

PooledEvent* pooled(alloc::Event event) { return reinterpret_cast<PooledEvent*>(static_cast<uintptr_t>(event)); }

}  // namespace

EventPool& EventPool::instance() {
  static EventPool* pool = new EventPool();  // never destroyed
  return *pool;
}

alloc::Event EventPool::record(DeviceIndex device, cudaStream_t stream) {
  DeviceEvents& events = events_of(device);
  PooledEvent* slot = nullptr;
  {
    std::lock_guard<std::mutex> lock(events.mutex);
    if (!events.free_events.empty()) {
      slot = events.free_events.back();
      events.free_events.pop_back();
    }
  }
  const CUDAGuard guard(device);
  if (slot == nullptr) {
    auto fresh = std::make_unique<PooledEvent>();
    fresh->device = device;
    TG_CUDA_CHECK(cudaEventCreateWithFlags(&fresh->event, cudaEventDisableTiming));
    slot = fresh.release();
  }
  TG_CUDA_CHECK(cudaEventRecord(slot->event, stream));
  return static_cast<alloc::Event>(reinterpret_cast<uintptr_t>(slot));
}

bool EventPool::done(alloc::Event event) {
  const cudaError_t status = cudaEventQuery(pooled(event)->event);
  if (status == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  TG_CUDA_CHECK(status);
  return true;
}

void EventPool::synchronize(alloc::Event event) { TG_CUDA_CHECK(cudaEventSynchronize(pooled(event)->event)); }

void EventPool::release(alloc::Event event) {
  PooledEvent* slot = pooled(event);
  DeviceEvents& events = events_of(slot->device);
  std::lock_guard<std::mutex> lock(events.mutex);
  events.free_events.push_back(slot);
}

}  // namespace tg::cuda
