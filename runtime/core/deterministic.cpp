#include "core/deterministic.h"

#include <atomic>

namespace tg {

namespace {
std::atomic<bool> deterministic{false};  // read by kernels as they launch: relaxed is enough
}  // namespace

void use_deterministic_algorithms(bool enabled) { deterministic.store(enabled, std::memory_order_relaxed); }

bool are_deterministic_algorithms_enabled() { return deterministic.load(std::memory_order_relaxed); }

}  // namespace tg
