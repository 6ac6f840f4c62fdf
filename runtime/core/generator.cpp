#include "core/generator.h"

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

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace tg
