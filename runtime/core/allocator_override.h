// Per-thread allocator override: while set for a device type on a thread, get_allocator(type)
// on that thread returns it instead of the process-wide allocator. A recorder (runtime/graphs)
// sets it during capture so that every tensor the captured code makes comes from a private
// pool. Thread-local: each thread sets and clears its own; other threads are unaffected.
#pragma once

#include "core/allocator.h"

namespace tg {

// Sets this thread's override for `type` (nullptr for none) and returns the previous one.
Allocator* set_thread_allocator_override(DeviceType type, Allocator* allocator) noexcept;

}  // namespace tg
