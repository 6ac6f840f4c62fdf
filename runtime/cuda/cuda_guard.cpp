#include "cuda/cuda_guard.h"

namespace tg::cuda {

CUDAGuard::CUDAGuard(Device device) : CUDAGuard(DeviceIndex{-1}) { set_device(device); }

void CUDAGuard::set_device(Device device) {
  TG_CHECK(device.is_cuda(), "[CUDAGuard] expected a CUDA device, got ", device);
  if (device.index() >= 0) {
    cuda::set_device(device.index());
    current_ = device.index();
  }
}

OptionalCUDAGuard::OptionalCUDAGuard(const std::optional<Device>& device) {
  if (device.has_value() && device->is_cuda()) original_ = exchange_device(device->index());
}

std::optional<Device> OptionalCUDAGuard::original_device() const {
  if (!original_.has_value()) return std::nullopt;
  return Device(kCUDA, *original_);
}

std::optional<Device> device_of(std::initializer_list<const TensorBase*> tensors) {
  for (const TensorBase* t : tensors) {
    if (t != nullptr && t->defined() && t->is_cuda()) return t->device();
  }
  return std::nullopt;
}

}  // namespace tg::cuda
