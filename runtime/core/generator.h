// Generator: a seeded source of random numbers for the random kernels (uniform_, normal_,
// rand, randn), like PyTorch's CPU generator. A Generator is a handle: copies share one state.
// Threading: the state is guarded by the generator's mutex; draw() and the draws under one
// `lock()` are atomic with respect to other threads, so one fill of a tensor takes a
// contiguous stretch of the sequence (same seed => same tensor, even with other threads).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <random>

namespace tg {

class Generator {
 public:
  static constexpr uint64_t kDefaultSeed = 67280421310721ULL;  // PyTorch's default_rng_seed_val

  explicit Generator(uint64_t seed = kDefaultSeed);

  // Restarts the sequence from `seed`.
  void manual_seed(uint64_t seed);
  // The seed the current sequence started from.
  uint64_t initial_seed() const;

  // A lock on this generator's state; the Engine methods below need it held.
  std::unique_lock<std::mutex> lock() const { return std::unique_lock<std::mutex>(state_->mutex); }

  // Draws from the locked state. Precondition: `lock()` held by the caller.
  class Engine {
   public:
    uint64_t next_u64() { return engine_(); }
    // Uniform in [0, 1) with 53 random bits.
    double next_double() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
    // Uniform in [0, 1) with 24 random bits: every value is exactly a float.
    float next_float() { return static_cast<float>(next_u64() >> 40) * 0x1.0p-24f; }

   private:
    friend class Generator;
    explicit Engine(std::mt19937_64& engine) : engine_(engine) {}
    std::mt19937_64& engine_;
  };
  // Precondition: the caller holds `lock()` for as long as it uses the Engine.
  Engine engine() const { return Engine(state_->engine); }

  bool operator==(const Generator& other) const noexcept { return state_ == other.state_; }

 private:
  struct State {
    std::mutex mutex;            // guards engine and seed
    std::mt19937_64 engine;
    uint64_t seed;
  };
  std::shared_ptr<State> state_;
};

// The process-wide generator the CPU random kernels use when given none.
Generator& default_generator();

// Seeds the default generator and, through the hook below, every other device's random state
// (torch.manual_seed).
void manual_seed(uint64_t seed);

// Installed by a backend with random state of its own (the CUDA runtime, at load): called by
// manual_seed with the seed, after the CPU generator is seeded.
using ManualSeedHook = void (*)(uint64_t seed);
void set_manual_seed_hook(ManualSeedHook hook);

}  // namespace tg
