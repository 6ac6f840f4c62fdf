#include "autograd/grad_mode.h"

namespace tg {

namespace {
// Each thread starts with grad mode on, as in PyTorch; the engine sets it per graph task.
thread_local bool grad_mode_enabled __attribute__((tls_model("initial-exec"))) = true;
}  // namespace

bool GradMode::is_enabled() { return grad_mode_enabled; }

void GradMode::set_enabled(bool enabled) { grad_mode_enabled = enabled; }

}  // namespace tg
