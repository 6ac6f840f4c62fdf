// The check a factory makes before it dispatches to a device's backend: that the build has
// the backend and the machine the device. For CUDA it raises "CUDA is not available: [op] ..."
// saying which is missing: tg::NotImplementedError in a build without the CUDA backend,
// tg::Error on a machine without a GPU. The generated BackendSelect kernels call it.
#pragma once

#include <string_view>

#include "core/device.h"

namespace tg {

void check_device_available(Device device, std::string_view op);

namespace cuda {
// Installed by the CUDA runtime at load: raises "CUDA is not available: ..." with the reason
// the CUDA runtime gave, when no device can be used.
using CheckAvailableFn = void (*)(std::string_view op);
void set_check_available_hook(CheckAvailableFn hook);
}  // namespace cuda

}  // namespace tg
