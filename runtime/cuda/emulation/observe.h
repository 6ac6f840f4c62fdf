// Observations of the emulated device for tests (runtime_api.cpp): how often the host has
// waited for the device. A wait is a call after which the host may read what the device
// wrote: a device-to-host copy, a stream, event or device synchronisation. Threading: any
// thread; the count is process-wide.
#pragma once

#include <cstdint>

namespace tg::cuda::emu {

int64_t host_wait_count();

}  // namespace tg::cuda::emu
