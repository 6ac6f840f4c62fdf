// Thread-local dispatch key sets: keys this thread adds to (included) and removes from
// (excluded) every call's key set, with RAII guards that restore the previous state.
// A call dispatches on ((keys of its tensors) | included) - excluded. Every thread starts
// with BackendSelect included (see local_dispatch_key_set.cpp).
#pragma once

#include "dispatch/dispatch_key_set.h"

namespace tg {

struct LocalDispatchKeySet {
  DispatchKeySet included;
  DispatchKeySet excluded;
};

namespace detail {
// initial-exec: one instruction to reach it on the dispatch fast path (the library is
// linked, never dlopen'ed late, so static TLS space is available).
extern thread_local LocalDispatchKeySet tls_dispatch_key_set __attribute__((tls_model("initial-exec")));
}  // namespace detail

inline LocalDispatchKeySet& local_dispatch_key_set() noexcept { return detail::tls_dispatch_key_set; }

// Adds `keys` to this thread's included set for the guard's lifetime.
class IncludeDispatchKeyGuard {
 public:
  explicit IncludeDispatchKeyGuard(DispatchKeySet keys);
  explicit IncludeDispatchKeyGuard(DispatchKey key) : IncludeDispatchKeyGuard(DispatchKeySet(key)) {}
  IncludeDispatchKeyGuard(const IncludeDispatchKeyGuard&) = delete;
  IncludeDispatchKeyGuard& operator=(const IncludeDispatchKeyGuard&) = delete;
  ~IncludeDispatchKeyGuard();

 private:
  DispatchKeySet previous_;
};

// Adds `keys` to this thread's excluded set for the guard's lifetime.
class ExcludeDispatchKeyGuard {
 public:
  explicit ExcludeDispatchKeyGuard(DispatchKeySet keys);
  explicit ExcludeDispatchKeyGuard(DispatchKey key) : ExcludeDispatchKeyGuard(DispatchKeySet(key)) {}
  ExcludeDispatchKeyGuard(const ExcludeDispatchKeyGuard&) = delete;
  ExcludeDispatchKeyGuard& operator=(const ExcludeDispatchKeyGuard&) = delete;
  ~ExcludeDispatchKeyGuard();

 private:
  DispatchKeySet previous_;
};

// Calls made in its scope skip autograd (and its in-place/view bookkeeping): what a kernel
// that implements its own backward uses around the ops it calls.
class AutoDispatchBelowAutograd {
 public:
  AutoDispatchBelowAutograd() : guard_(kAutogradRelatedKeys) {}

 private:
  ExcludeDispatchKeyGuard guard_;
};

}  // namespace tg
