#include "core/storage.h"

#include <cstring>

#include "core/error.h"
#include "core/stream_guard.h"

namespace tg {

void StorageImpl::grow_to(size_t nbytes) {
  if (nbytes <= nbytes_) return;
  TG_CHECK(resizable(), "[resize] cannot resize a tensor whose memory is owned outside tensorgen (from_blob): has ",
           nbytes_, " bytes, needs ", nbytes);
  DataPtr bigger = allocator_->allocate(nbytes);
  if (nbytes_ > 0) {
    // Only host memory is copied here; device backends replace the allocator and copy themselves.
    TG_CHECK_NOT_IMPLEMENTED(device().is_cpu(), "[resize] growing a ", device(), " storage in place is not supported");
    std::memcpy(bigger.get(), data_ptr_.get(), nbytes_);
  }
  data_ptr_ = std::move(bigger);
  nbytes_ = nbytes;
}

namespace {
[[gnu::noinline]] Storage make_device_storage(size_t nbytes, Device device, Allocator* allocator) {
  // Device allocators allocate on the current device: make the one asked for current (when
  // the device type has a guard implementation; a test's fake allocator may have none).
  const bool guard_device = device.has_index() && device_guard_impl(device.type()) != nullptr;
  const OptionalDeviceGuard guard(guard_device ? std::optional<Device>(device) : std::nullopt);
  return make_intrusive<StorageImpl>(allocator->allocate(nbytes), nbytes, allocator);
}
}  // namespace

Storage make_storage(size_t nbytes, Device device) {
  Allocator* allocator = get_allocator(device.type());
  if (device.is_cpu()) return make_intrusive<StorageImpl>(allocator->allocate(nbytes), nbytes, allocator);
  return make_device_storage(nbytes, device, allocator);
}

}  // namespace tg
