#include "dispatch/local_dispatch_key_set.h"

namespace tg {

namespace detail {
// BackendSelect is always included, as in PyTorch: factories (no tensor argument) reach
// their BackendSelect kernel, and every other operator masks the key out through the
// global fallthrough (see default_fallbacks.cpp).
thread_local LocalDispatchKeySet tls_dispatch_key_set{DispatchKeySet(DispatchKey::BackendSelect), DispatchKeySet()};
}

IncludeDispatchKeyGuard::IncludeDispatchKeyGuard(DispatchKeySet keys) : previous_(local_dispatch_key_set().included) {
  local_dispatch_key_set().included = previous_ | keys;
}

IncludeDispatchKeyGuard::~IncludeDispatchKeyGuard() { local_dispatch_key_set().included = previous_; }

ExcludeDispatchKeyGuard::ExcludeDispatchKeyGuard(DispatchKeySet keys) : previous_(local_dispatch_key_set().excluded) {
  local_dispatch_key_set().excluded = previous_ | keys;
}

ExcludeDispatchKeyGuard::~ExcludeDispatchKeyGuard() { local_dispatch_key_set().excluded = previous_; }

}  // namespace tg
