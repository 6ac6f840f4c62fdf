// Emulated device (runtime/cuda/emulation): the runtime API, implemented on the host.
#pragma once
#include "cuda/emulation/runtime_api.h"
