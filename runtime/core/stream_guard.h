// RAII over DeviceGuardImpl: guards that make a device or stream current for a scope and
// restore the previous one, and Event, a device-generic event. With an empty optional, or a
// CPU device or stream, the guards do nothing, so device-generic code costs nothing on CPU.
#pragma once

#include <optional>

#include "core/device_guard_impl.h"

namespace tg {

// Makes the stream (and its device) current until the end of the scope.
class OptionalStreamGuard {
 public:
  // Inline, so that CPU code (no stream) pays one test.
  explicit OptionalStreamGuard(const std::optional<Stream>& stream) {
    if (stream.has_value() && !stream->device().is_cpu()) enter(*stream);
  }
  ~OptionalStreamGuard() {
    if (impl_ != nullptr) restore();
  }
  OptionalStreamGuard(const OptionalStreamGuard&) = delete;
  OptionalStreamGuard& operator=(const OptionalStreamGuard&) = delete;

 private:
  void enter(const Stream& stream);
  void restore() noexcept;

  const DeviceGuardImpl* impl_ = nullptr;  // null: nothing to restore
  std::optional<Device> original_device_;
  std::optional<Stream> original_stream_;
};

// Makes the device current until the end of the scope.
class OptionalDeviceGuard {
 public:
  explicit OptionalDeviceGuard(const std::optional<Device>& device);
  ~OptionalDeviceGuard();
  OptionalDeviceGuard(const OptionalDeviceGuard&) = delete;
  OptionalDeviceGuard& operator=(const OptionalDeviceGuard&) = delete;

 private:
  const DeviceGuardImpl* impl_ = nullptr;
  std::optional<Device> original_device_;
};

// A point in a stream's work. record() marks everything submitted to the stream so far;
// block(s) makes stream s wait for that work. Move-only; the handle is made on first record.
class Event {
 public:
  explicit Event(DeviceType type) : type_(type) {}
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Throws tg::Error for a stream of another device type, or of a type without streams.
  void record(const Stream& stream);
  // Does nothing if the event was never recorded.
  void block(const Stream& stream) const;
  bool was_recorded() const noexcept { return event_ != nullptr; }

 private:
  DeviceType type_;
  std::optional<Device> device_;  // of the stream it was recorded on
  void* event_ = nullptr;
};

}  // namespace tg
