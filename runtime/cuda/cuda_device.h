// The CUDA devices of this process: how many there are, which one is current on this thread,
// and the check every CUDA entry point makes first. DeviceIndex is c10's name for a device's
// ordinal; -1 means "the current device" wherever an index is accepted.
#pragma once

#include <cstdint>
#include <string_view>

#include <cuda_runtime_api.h>

#include "core/device.h"

namespace tg::cuda {

using DeviceIndex = Device::Index;

// The number of CUDA devices, 0 (never an error) without a driver or a GPU. Asked once and
// cached; this is the query tg::cuda::device_count() forwards to in a CUDA build.
int device_count_or_zero() noexcept;

// Throws tg::Error "CUDA is not available: [op] needs a CUDA device, but ..." with the reason
// the runtime gave (no GPU, no driver) when there is no device.
void check_available(std::string_view op);
// Why there is no device (the reason the errors above give); empty when there is one.
std::string_view unavailable_reason() noexcept;
// Resolves -1 to the current device; throws tg::Error for an index with no device behind it.
DeviceIndex resolve_device(DeviceIndex index, std::string_view op);

// This thread's current device (cudaGetDevice) and a change of it (cudaSetDevice, skipped when
// it is already current, so no context is made needlessly).
DeviceIndex current_device();
void set_device(DeviceIndex index);
// Makes `index` current and returns the device that was.
DeviceIndex exchange_device(DeviceIndex index);

// Blocks until all work on the device (-1: the current one) is done.
void synchronize(DeviceIndex index = -1);

// The device's properties, queried once per device.
const cudaDeviceProp& device_properties(DeviceIndex index = -1);

}  // namespace tg::cuda
