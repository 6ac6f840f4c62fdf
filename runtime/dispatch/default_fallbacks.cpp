// Fallbacks every program has: keys that most operators simply pass through.
#include "dispatch/library.h"

namespace tg {
namespace {

// Only factories register BackendSelect kernels; every other operator skips the key.
TG_LIBRARY_IMPL(_, BackendSelect, m) { m.fallback(KernelFunction::makeFallthrough()); }

}  // namespace
}  // namespace tg
