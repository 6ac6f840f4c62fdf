#include "core/allocator.h"

#include <array>
#include <atomic>
#include <utility>

#include "core/allocator_override.h"
#include "core/error.h"
#include "core/large_block_cache.h"
#include "core/small_block_cache.h"

namespace tg {

namespace {

class CpuAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(DeviceType::CPU));
    if (nbytes <= small_block_cache::kMaxBytes) return small_block_cache::allocate(nbytes);
    return large_block_cache::allocate(nbytes);
  }
};

thread_local std::array<Allocator*, kNumDeviceTypes> tls_overrides __attribute__((tls_model("initial-exec"))){};

// Both constant-initialized (constinit): every new tensor reads them, and a function-local
// static would test its guard on each read.
constinit CpuAllocator the_cpu_allocator;
constinit std::array<std::atomic<Allocator*>, kNumDeviceTypes> allocator_registry{};

[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void raise_no_allocator(DeviceType type) {
  TG_THROW(NotImplementedError, "[get_allocator] no allocator for device type ", type,
           ": this build of tensorgen has no backend for it, or it is not available");
}

}  // namespace

Allocator* cpu_allocator() { return &the_cpu_allocator; }

Allocator* set_thread_allocator_override(DeviceType type, Allocator* allocator) noexcept {
  return std::exchange(tls_overrides[static_cast<int>(type)], allocator);
}

Allocator* get_allocator(DeviceType type) {
  if (Allocator* override_allocator = tls_overrides[static_cast<int>(type)]) return override_allocator;
  Allocator* allocator = allocator_registry[static_cast<int>(type)].load(std::memory_order_acquire);
  if (allocator == nullptr && type == DeviceType::CPU) return cpu_allocator();
  if (allocator == nullptr) raise_no_allocator(type);
  return allocator;
}

void set_allocator(DeviceType type, Allocator* allocator) {
  allocator_registry[static_cast<int>(type)].store(allocator, std::memory_order_release);
}

}  // namespace tg
