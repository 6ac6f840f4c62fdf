// Emulated device (runtime/cuda/emulation): cuBLAS calls answered by the CPU BLAS.
#pragma once
#include "cuda/emulation/cublas_shim.h"
