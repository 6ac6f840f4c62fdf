#include "cuda/cuda_device.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/cuda_check.h"

namespace tg::cuda {

namespace {

struct DeviceCount {
  int count = 0;
  std::string reason;  // why count is 0
};

const DeviceCount& device_count_state() {
  static const DeviceCount state = [] {
    DeviceCount result;
    const cudaError_t error = cudaGetDeviceCount(&result.count);
    if (error != cudaSuccess) {
      (void)cudaGetLastError();
      result.count = 0;
      result.reason = ::tg::detail::str("cudaGetDeviceCount reported \"", cudaGetErrorString(error), "\" (",
                          cudaGetErrorName(error), ")");
    } else if (result.count == 0) {
      result.reason = "cudaGetDeviceCount found no device";
    }
    return result;
  }();
  return state;
}

}  // namespace

int device_count_or_zero() noexcept { return device_count_state().count; }

std::string_view unavailable_reason() noexcept { return device_count_state().reason; }

void check_available(std::string_view op) {
  const DeviceCount& state = device_count_state();
  TG_CHECK(state.count > 0, "CUDA is not available: [", op, "] needs a CUDA device, but ", state.reason);
}

DeviceIndex resolve_device(DeviceIndex index, std::string_view op) {
  check_available(op);
  if (index == -1) return current_device();
  TG_CHECK(index >= 0 && index < device_count_or_zero(), "[", op, "] CUDA device ", static_cast<int>(index),
           " does not exist: this machine has ", device_count_or_zero(), " CUDA device(s)");
  return index;
}

DeviceIndex current_device() {
  int index = 0;
  TG_CUDA_CHECK(cudaGetDevice(&index));
  return static_cast<DeviceIndex>(index);
}

void set_device(DeviceIndex index) {
  if (index >= 0 && index != current_device()) TG_CUDA_CHECK(cudaSetDevice(index));
}

DeviceIndex exchange_device(DeviceIndex index) {
  const DeviceIndex previous = current_device();
  if (index >= 0 && index != previous) TG_CUDA_CHECK(cudaSetDevice(index));
  return previous;
}

void synchronize(DeviceIndex index) {
  const DeviceIndex device = resolve_device(index, "synchronize");
  const DeviceIndex previous = exchange_device(device);
  const cudaError_t error = cudaDeviceSynchronize();
  exchange_device(previous);
  TG_CUDA_CHECK(error);
}

const cudaDeviceProp& device_properties(DeviceIndex index) {
  struct Cache {
    std::vector<cudaDeviceProp> properties;
    std::unique_ptr<std::once_flag[]> queried;
  };
  static Cache cache = [] {
    const auto n = static_cast<size_t>(device_count_or_zero());
    return Cache{std::vector<cudaDeviceProp>(n), std::make_unique<std::once_flag[]>(n)};
  }();
  const auto device = static_cast<size_t>(resolve_device(index, "device_properties"));
  std::call_once(cache.queried[device], [device] {
    TG_CUDA_CHECK(cudaGetDeviceProperties(&cache.properties[device], static_cast<int>(device)));
  });
  return cache.properties[device];
}

}  // namespace tg::cuda
