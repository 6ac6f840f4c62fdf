// Emulated device (runtime/cuda/emulation): CUDA's bfloat16 type on the host.
#pragma once
#include "cuda/emulation/half_types.h"
