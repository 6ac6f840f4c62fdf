#include "core/cuda_availability.h"

#include <atomic>

#include "core/device_availability.h"
#include "core/error.h"

namespace tg::cuda {

namespace {
std::atomic<DeviceCountFn> g_device_count{nullptr};
std::atomic<CheckAvailableFn> g_check_available{nullptr};
}  // namespace

int device_count() {
  DeviceCountFn hook = g_device_count.load(std::memory_order_acquire);
  return hook != nullptr ? hook() : 0;
}

void set_device_count_hook(DeviceCountFn hook) { g_device_count.store(hook, std::memory_order_release); }

void set_check_available_hook(CheckAvailableFn hook) { g_check_available.store(hook, std::memory_order_release); }

}  // namespace tg::cuda

namespace tg {

void check_device_available(Device device, std::string_view op) {
  if (!device.is_cuda()) return;
  const cuda::CheckAvailableFn check = cuda::g_check_available.load(std::memory_order_acquire);
  TG_CHECK_NOT_IMPLEMENTED(check != nullptr, "CUDA is not available: [", op, "] was called for ", device,
                           ", but this build of tensorgen has no CUDA backend (it was configured without nvcc, ",
                           "or with -Dcuda=disabled)");
  check(op);
}

}  // namespace tg
