// CUDAEvent (at::cuda::CUDAEvent): a marker in a stream's work. record(s) marks everything
// submitted to s so far; block(t) makes stream t wait for it on the device; query() and
// synchronize() ask from the host. The cudaEvent_t is made on the first record, on the
// stream's device, and an event stays on that device. Move-only.
#pragma once

#include <cuda_runtime_api.h>

#include "cuda/cuda_stream.h"

namespace tg::cuda {

class CUDAEvent {
 public:
  // Timing is off by default: such events are cheaper to record and wait on.
  explicit CUDAEvent(unsigned int flags = cudaEventDisableTiming) : flags_(flags) {}
  ~CUDAEvent();
  CUDAEvent(CUDAEvent&& other) noexcept;
  CUDAEvent& operator=(CUDAEvent&& other) noexcept;
  CUDAEvent(const CUDAEvent&) = delete;
  CUDAEvent& operator=(const CUDAEvent&) = delete;

  void record() { record(getCurrentCUDAStream()); }
  // Throws tg::Error for a stream of another device than the event's.
  void record(const CUDAStream& stream);
  // Makes `stream` wait for the recorded work; does nothing if the event was never recorded.
  void block(const CUDAStream& stream) const;
  // True when the recorded work is done, or the event was never recorded.
  bool query() const;
  void synchronize() const;
  // Milliseconds between this event and `end`; both need cudaEventDefault and to be done.
  float elapsed_time(const CUDAEvent& end) const;

  bool is_created() const noexcept { return event_ != nullptr; }
  DeviceIndex device_index() const noexcept { return device_; }
  cudaEvent_t event() const noexcept { return event_; }

 private:
  unsigned int flags_;
  DeviceIndex device_ = -1;
  cudaEvent_t event_ = nullptr;
};

}  // namespace tg::cuda
