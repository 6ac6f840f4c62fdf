// The random state of each CUDA device (PyTorch's CUDAGeneratorImpl): a seed and an offset
// for the counter-based Philox4x32-10 generator the random kernels use. A kernel that draws
// reserves offsets with philox_state(device, n); element i of that call then draws from
// Philox(key = seed, counter = (i, offset)), so its values depend only on the seed and the
// number of draws before it, never on the launch configuration or other threads' timing.
// tg::manual_seed(s) seeds every device (as torch.manual_seed does); see Note [Random numbers
// on CUDA] in docs/cuda.md for what matches the CPU and what does not.
#pragma once

#include <cstdint>

#include "cuda/cuda_device.h"

namespace tg::cuda {

struct PhiloxState {
  uint64_t seed = 0;
  uint64_t offset = 0;
};

// The state for one random kernel on `device` that draws `calls` counters per element;
// advances the device's offset past them. Thread-safe.
PhiloxState philox_state(DeviceIndex device, uint64_t calls = 1);

// Seeds every CUDA device (torch.cuda.manual_seed_all) and one device.
void manual_seed_all(uint64_t seed);
void manual_seed(uint64_t seed, DeviceIndex device = -1);
uint64_t initial_seed(DeviceIndex device = -1);

}  // namespace tg::cuda
