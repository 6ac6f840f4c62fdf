// Device guards: make a CUDA device current for a scope and restore the previous one at its
// end (c10::cuda::CUDAGuard and OptionalCUDAGuard). A guard on the device that is already
// current costs one cudaGetDevice and changes nothing.
#pragma once

#include <initializer_list>
#include <optional>

#include "core/tensor_base.h"
#include "cuda/cuda_device.h"

namespace tg::cuda {

class CUDAGuard {
 public:
  // Index -1 keeps the current device. Throws tg::Error for a CPU device.
  explicit CUDAGuard(DeviceIndex index) : original_(exchange_device(index)), current_(cuda::current_device()) {}
  explicit CUDAGuard(Device device);
  ~CUDAGuard() { cuda::set_device(original_); }
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;

  void set_device(Device device);
  Device original_device() const { return Device(kCUDA, original_); }
  Device current_device() const { return Device(kCUDA, current_); }

 private:
  DeviceIndex original_;
  DeviceIndex current_;
};

// A CUDAGuard when given a CUDA device; nothing for an empty optional or a CPU device.
class OptionalCUDAGuard {
 public:
  explicit OptionalCUDAGuard(const std::optional<Device>& device);
  ~OptionalCUDAGuard() {
    if (original_.has_value()) cuda::set_device(*original_);
  }
  OptionalCUDAGuard(const OptionalCUDAGuard&) = delete;
  OptionalCUDAGuard& operator=(const OptionalCUDAGuard&) = delete;

  std::optional<Device> original_device() const;

 private:
  std::optional<DeviceIndex> original_;
};

// The device of the first defined CUDA tensor among `tensors` (null pointers are skipped), or
// nullopt: what the generated CUDA wrappers guard on.
std::optional<Device> device_of(std::initializer_list<const TensorBase*> tensors);

}  // namespace tg::cuda
