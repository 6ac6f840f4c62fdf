#include "core/cuda_availability.h"

#include <atomic>

namespace tg::cuda {

namespace {
std::atomic<DeviceCountFn> g_device_count{nullptr};
}  // namespace

int device_count() {
  DeviceCountFn hook = g_device_count.load(std::memory_order_acquire);
  return hook != nullptr ? hook() : 0;
}

void set_device_count_hook(DeviceCountFn hook) { g_device_count.store(hook, std::memory_order_release); }

}  // namespace tg::cuda
