#include "core/generator.h"

#include <atomic>

namespace tg {

Generator::Generator(uint64_t seed) : state_(std::make_shared<State>()) {
  state_->engine.seed(seed);
  state_->seed = seed;
}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> guard(state_->mutex);
  state_->engine.seed(seed);
  state_->seed = seed;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> guard(state_->mutex);
  return state_->seed;
}

Generator& default_generator() {
  static Generator generator;
  return generator;
}

namespace {
std::atomic<ManualSeedHook> g_manual_seed_hook{nullptr};
}  // namespace

void manual_seed(uint64_t seed) {
  default_generator().manual_seed(seed);
  if (ManualSeedHook hook = g_manual_seed_hook.load(std::memory_order_acquire)) hook(seed);
}

void set_manual_seed_hook(ManualSeedHook hook) { g_manual_seed_hook.store(hook, std::memory_order_release); }

}  // namespace tg
