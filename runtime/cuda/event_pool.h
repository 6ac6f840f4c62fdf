// EventPool: the cudaEvent_t's the allocator backends record, reused instead of made and
// destroyed per free. An alloc::Event from the pool is the address of a PooledEvent (its
// event and device); it stays valid until release(), which returns it to its device's list.
// Thread-safe: one mutex per device guards that device's free list.
#pragma once

#include <cuda_runtime_api.h>

#include "alloc/raw_memory.h"
#include "cuda/cuda_device.h"

namespace tg::cuda {

class EventPool {
 public:
  // An event recorded on `stream` of `device` (timing disabled).
  alloc::Event record(DeviceIndex device, cudaStream_t stream);
  // Non-blocking: is the recorded work done?
  bool done(alloc::Event event);
  void synchronize(alloc::Event event);
  void release(alloc::Event event);

  // The events are never destroyed: the pool lives as long as the process (see Note
  // [Allocators live forever] in docs/cuda.md).
  static EventPool& instance();
};

}  // namespace tg::cuda
