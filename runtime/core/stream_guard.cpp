#include "core/stream_guard.h"

#include <array>
#include <atomic>
#include <ostream>
#include <utility>

#include "core/error.h"

namespace tg {

namespace {

std::array<std::atomic<const DeviceGuardImpl*>, kNumDeviceTypes>& registry() {
  static std::array<std::atomic<const DeviceGuardImpl*>, kNumDeviceTypes> impls{};
  return impls;
}

const DeviceGuardImpl& impl_for(DeviceType type, const char* op) {
  const DeviceGuardImpl* impl = device_guard_impl(type);
  TG_CHECK(impl != nullptr, "[", op, "] ", type, " has no streams or events in this build");
  return *impl;
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const Stream& stream) {
  return out << "stream " << stream.id() << " on " << stream.device();
}

const DeviceGuardImpl* device_guard_impl(DeviceType type) {
  return registry()[static_cast<int>(type)].load(std::memory_order_acquire);
}

void set_device_guard_impl(DeviceType type, const DeviceGuardImpl* impl) {
  registry()[static_cast<int>(type)].store(impl, std::memory_order_release);
}

void OptionalStreamGuard::enter(const Stream& stream) {
  const DeviceGuardImpl& impl = impl_for(stream.device().type(), "OptionalStreamGuard");
  original_device_ = impl.exchange_device(stream.device());
  original_stream_ = impl.exchange_stream(stream);
  impl_ = &impl;
}

void OptionalStreamGuard::restore() noexcept {
  impl_->exchange_stream(*original_stream_);
  impl_->exchange_device(*original_device_);
}

OptionalDeviceGuard::OptionalDeviceGuard(const std::optional<Device>& device) {
  if (!device.has_value() || device->is_cpu()) return;
  const DeviceGuardImpl& impl = impl_for(device->type(), "OptionalDeviceGuard");
  original_device_ = impl.exchange_device(*device);
  impl_ = &impl;
}

OptionalDeviceGuard::~OptionalDeviceGuard() {
  if (impl_ != nullptr) impl_->exchange_device(*original_device_);
}

Event::~Event() {
  if (event_ != nullptr) impl_for(type_, "Event").destroy_event(event_, *device_);
}

Event::Event(Event&& other) noexcept
    : type_(other.type_), device_(std::exchange(other.device_, std::nullopt)), event_(std::exchange(other.event_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    Event old(std::move(*this));
    type_ = other.type_;
    device_ = std::exchange(other.device_, std::nullopt);
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

void Event::record(const Stream& stream) {
  TG_CHECK(stream.device().type() == type_, "[Event] an event of ", type_, " cannot be recorded on ", stream);
  TG_CHECK(!device_.has_value() || *device_ == stream.device(), "[Event] an event made on ", *device_,
           " cannot be recorded on ", stream);
  impl_for(type_, "Event").record_event(&event_, stream);
  device_ = stream.device();
}

void Event::block(const Stream& stream) const {
  if (event_ == nullptr) return;
  impl_for(type_, "Event").block_on_event(event_, stream);
}

}  // namespace tg
