// A hook told of every TensorImpl constructed while it is enabled: how tg::func's grad, vjp and
// jvp learn which tensors were created inside them (anything else is captured from outside;
// runtime/functorch/capture_check.cpp). Invariant: the hook runs only while enable count > 0,
// so tensors made outside any transform cost one relaxed atomic load.
// Threading: the hook is set once at static initialization; enable/disable are atomic and the
// hook itself must be thread-safe (tg::func's keeps thread-local state).
#pragma once

#include <atomic>

namespace tg {
class TensorImpl;

namespace detail {

using TensorCreationHook = void (*)(const TensorImpl* created);

void set_tensor_creation_hook(TensorCreationHook hook);
// Each enable is matched by one disable; the hook runs while more enables than disables ran.
void enable_tensor_creation_hook() noexcept;
void disable_tensor_creation_hook() noexcept;
// Called by TensorImpl's constructor.
void notify_tensor_created(const TensorImpl* created);

extern std::atomic<int> tensor_creation_hook_enabled;

}  // namespace detail
}  // namespace tg
