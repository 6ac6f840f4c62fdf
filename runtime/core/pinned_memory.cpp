#include "core/pinned_memory.h"

#include <atomic>

#include "core/error.h"

namespace tg {

namespace {
std::atomic<Allocator*> g_pinned_allocator{nullptr};
std::atomic<CheckPinnableFn> g_check_pinnable{nullptr};
std::atomic<IsPinnedFn> g_is_pinned{nullptr};
}  // namespace

void set_pinned_memory_hooks(Allocator* allocator, CheckPinnableFn check, IsPinnedFn is_pinned) {
  g_pinned_allocator.store(allocator, std::memory_order_release);
  g_check_pinnable.store(check, std::memory_order_release);
  g_is_pinned.store(is_pinned, std::memory_order_release);
}

Allocator* pinned_memory_allocator(std::string_view op) {
  const CheckPinnableFn check = g_check_pinnable.load(std::memory_order_acquire);
  TG_CHECK(check != nullptr, "CUDA is not available: [", op, "] pin_memory=true asks for pinned (page-locked) host ",
           "memory, which only a CUDA driver can provide, but this build of tensorgen has no CUDA backend (it was ",
           "configured without nvcc, or with -Dcuda=disabled); leave pin_memory unset for ordinary CPU memory");
  check(op);
  return g_pinned_allocator.load(std::memory_order_acquire);
}

bool is_pinned_memory(const DataPtr& data) {
  const IsPinnedFn hook = g_is_pinned.load(std::memory_order_acquire);
  return hook != nullptr && hook(data);
}

bool is_pinned_memory_allocator(const Allocator* allocator) {
  return allocator != nullptr && allocator == g_pinned_allocator.load(std::memory_order_acquire);
}

}  // namespace tg
