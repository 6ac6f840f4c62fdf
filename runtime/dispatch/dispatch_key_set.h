// DispatchKeySet: a 64-bit set of runtime dispatch keys; bit i is DispatchKey(i).
// Priority is the bit index: highest_priority_key() is the highest set bit, so a call goes
// to Autograd before Tracer before the backend. Every operation is a few
// instructions on one word; nothing here allocates.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <ostream>

#include "dispatch/dispatch_key.h"

namespace tg {

class DispatchKeySet {
 public:
  constexpr DispatchKeySet() = default;
  constexpr explicit DispatchKeySet(DispatchKey k) : repr_(k == DispatchKey::Undefined ? 0 : bit(k)) {}
  constexpr DispatchKeySet(std::initializer_list<DispatchKey> keys) {
    for (DispatchKey k : keys) repr_ |= DispatchKeySet(k).repr_;
  }
  static constexpr DispatchKeySet from_raw(uint64_t repr) {
    DispatchKeySet s;
    s.repr_ = repr;
    return s;
  }
  // Every runtime key strictly below `k` in priority.
  static constexpr DispatchKeySet below(DispatchKey k) {
    return from_raw((bit(k) - 1) & ~uint64_t(1));  // bit 0 is Undefined, never a member
  }
  // Every runtime key.
  static constexpr DispatchKeySet full() { return from_raw((uint64_t(1) << kNumRuntimeKeys) - 2); }

  constexpr bool has(DispatchKey k) const { return (repr_ & bit(k)) != 0; }
  constexpr bool empty() const { return repr_ == 0; }
  constexpr uint64_t raw() const { return repr_; }

  constexpr DispatchKeySet operator|(DispatchKeySet o) const { return from_raw(repr_ | o.repr_); }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const { return from_raw(repr_ & o.repr_); }
  constexpr DispatchKeySet operator-(DispatchKeySet o) const { return from_raw(repr_ & ~o.repr_); }
  constexpr DispatchKeySet& operator|=(DispatchKeySet o) { repr_ |= o.repr_; return *this; }
  constexpr DispatchKeySet add(DispatchKey k) const { return *this | DispatchKeySet(k); }
  constexpr DispatchKeySet remove(DispatchKey k) const { return *this - DispatchKeySet(k); }
  constexpr bool operator==(DispatchKeySet o) const { return repr_ == o.repr_; }
  constexpr bool operator!=(DispatchKeySet o) const { return repr_ != o.repr_; }

  // Undefined when the set is empty.
  constexpr DispatchKey highest_priority_key() const {
    return repr_ == 0 ? DispatchKey::Undefined : static_cast<DispatchKey>(63 - __builtin_clzll(repr_));
  }
  // The keys strictly below this set's highest key (what a kernel redispatches to).
  constexpr DispatchKeySet below_highest() const { return *this & below(highest_priority_key()); }

  // Iterates keys from lowest to highest priority.
  template <typename F>
  void for_each(F&& f) const {
    for (uint64_t r = repr_; r != 0; r &= r - 1) f(static_cast<DispatchKey>(__builtin_ctzll(r)));
  }

 private:
  static constexpr uint64_t bit(DispatchKey k) { return uint64_t(1) << static_cast<int>(k); }
  uint64_t repr_ = 0;
};

static_assert(kNumRuntimeKeys <= 64, "DispatchKeySet holds at most 64 runtime keys");

std::ostream& operator<<(std::ostream& out, DispatchKeySet ks);

// Keys that autograd-aware code steps below (AutoDispatchBelowAutograd excludes these).
// PyTorch also has ADInplaceOrView here; tensorgen bumps versions in the backend wrappers
// and records views in the Autograd kernels instead (Note [Version bumps in backend wrappers]).
constexpr DispatchKeySet kAutogradRelatedKeys{DispatchKey::Autograd};
constexpr DispatchKeySet kBackendKeys{DispatchKey::CPU, DispatchKey::CUDA, DispatchKey::PrivateUse1};

}  // namespace tg
