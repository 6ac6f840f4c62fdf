// tg::cuda::is_available() and device_count(), as in LibTorch. The core library knows no
// CUDA: the CUDA runtime, when it is built and loaded, installs the real query here (as
// PyTorch's CUDAHooks do), so a CPU-only build answers "no device" without linking cudart.
#pragma once

namespace tg::cuda {

using DeviceCountFn = int (*)();

// The number of usable CUDA devices; 0 without a CUDA build, a driver or a GPU.
int device_count();
inline bool is_available() { return device_count() > 0; }

// Called once by the CUDA runtime's static initialisation.
void set_device_count_hook(DeviceCountFn hook);

}  // namespace tg::cuda
