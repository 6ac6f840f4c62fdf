#include "cuda/cuda_generator.h"

#include <memory>
#include <mutex>

#include "core/generator.h"

namespace tg::cuda {

namespace {

struct DeviceRandomState {
  std::mutex mutex;  // guards seed and offset
  uint64_t seed = Generator::kDefaultSeed;
  uint64_t offset = 0;
};

DeviceRandomState& state_of(DeviceIndex device) {
  static std::unique_ptr<DeviceRandomState[]> states(new DeviceRandomState[static_cast<size_t>(device_count_or_zero())]);
  return states[static_cast<size_t>(device)];
}

}  // namespace

PhiloxState philox_state(DeviceIndex device, uint64_t calls) {
  DeviceRandomState& state = state_of(resolve_device(device, "philox_state"));
  std::lock_guard<std::mutex> lock(state.mutex);
  const PhiloxState result{state.seed, state.offset};
  state.offset += calls;
  return result;
}

void manual_seed(uint64_t seed, DeviceIndex device) {
  DeviceRandomState& state = state_of(resolve_device(device, "manual_seed"));
  std::lock_guard<std::mutex> lock(state.mutex);
  state.seed = seed;
  state.offset = 0;
}

void manual_seed_all(uint64_t seed) {
  for (int device = 0; device < device_count_or_zero(); ++device) manual_seed(seed, static_cast<DeviceIndex>(device));
}

uint64_t initial_seed(DeviceIndex device) {
  DeviceRandomState& state = state_of(resolve_device(device, "initial_seed"));
  std::lock_guard<std::mutex> lock(state.mutex);
  return state.seed;
}

}  // namespace tg::cuda
