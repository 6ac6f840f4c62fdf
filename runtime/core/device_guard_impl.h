// DeviceGuardImpl: what device-generic runtime code (the autograd engine and InputBuffer)
// needs from a backend's devices, streams and events, without linking the backend (the role
// of c10's DeviceGuardImplInterface). The CUDA runtime registers one for DeviceType::CUDA
// when it is loaded; the CPU has none, and code asks for one only for non-CPU tensors.
// The guards and Event in core/stream_guard.h are the RAII layer over it.
#pragma once

#include "core/allocator.h"
#include "core/device.h"
#include "core/stream.h"

namespace tg {

// An implementation is stateless apart from the backend's own thread-local state (the
// current device and streams), so one instance serves every thread.
class DeviceGuardImpl {
 public:
  virtual ~DeviceGuardImpl() = default;

  // Makes `device` current on this thread and returns the device that was.
  virtual Device exchange_device(Device device) const = 0;
  // This thread's current stream on `device` (an index of -1 means the current device).
  virtual Stream current_stream(Device device) const = 0;
  virtual Stream default_stream(Device device) const = 0;
  // Makes `stream` this thread's current stream on its device; returns the one that was.
  virtual Stream exchange_stream(Stream stream) const = 0;

  // Events are opaque handles owned by the caller: record_event creates one on first use
  // (*event == nullptr) and re-records it later; destroy_event releases it.
  virtual void record_event(void** event, Stream stream) const = 0;
  // `stream` waits (on the device, not the host) for the work recorded in `event`.
  virtual void block_on_event(void* event, Stream stream) const = 0;
  virtual void destroy_event(void* event, Device device) const noexcept = 0;

  // Tells the allocator that `stream` uses the memory, so that it is not reused before the
  // work `stream` has been given so far is done (see the caching allocator's record_stream).
  virtual void record_data_ptr_on_stream(const DataPtr& data, Stream stream) const = 0;
};

// The implementation registered for `type`, or nullptr (always for the CPU, and for CUDA in a
// build without it). Lock-free.
const DeviceGuardImpl* device_guard_impl(DeviceType type);
// Called once by a backend's static initialisation.
void set_device_guard_impl(DeviceType type, const DeviceGuardImpl* impl);

}  // namespace tg
