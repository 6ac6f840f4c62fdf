// What the kernel launcher asks of the emulated runtime (runtime_api.cpp): whether a stream
// may take a launch from the calling thread, and the launch count of the stream's device.
// Threading: any thread.
#pragma once

#include <string>

#include "cuda/emulation/runtime_api.h"

namespace tg::cuda::emu {

// False, with the reason in *why, when `stream` is destroyed, unknown, or of a device other
// than the current one (CUDA's rule: a launch goes to the current device).
bool check_launch_stream(cudaStream_t stream, std::string* why);
void count_launch(cudaStream_t stream);

}  // namespace tg::cuda::emu
