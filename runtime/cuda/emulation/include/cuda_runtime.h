// Emulated device (runtime/cuda/emulation): what nvcc makes visible in a .cu file, the runtime
// API and the device built-ins, for kernel sources compiled by the host compiler.
#pragma once
#include "cuda/emulation/runtime_api.h"
#include "cuda/emulation/half_types.h"
#include "cuda/emulation/device_builtins.h"
#include "cuda/emulation/launch.h"
