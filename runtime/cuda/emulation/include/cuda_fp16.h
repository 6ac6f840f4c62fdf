// Emulated device (runtime/cuda/emulation): CUDA's half type on the host.
#pragma once
#include "cuda/emulation/half_types.h"
