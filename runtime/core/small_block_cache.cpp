#include "core/small_block_cache.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <utility>

#include "core/address_sanitizer.h"
#include "core/error.h"

namespace tg::small_block_cache {

namespace detail {
// Trivially destructible, so a block freed during thread exit (after Flusher ran) still reads
// valid values: a null cache, and `t_closed`. Initial-exec, as every trivially typed
// thread_local on a per-operator path (grad mode, sequence numbers, allocator overrides): the
// library's TLS is static anyway (Note [Static TLS]), and the default model costs a
// __tls_get_addr call per access.
thread_local constinit Cache* t_cache __attribute__((tls_model("initial-exec"))) = nullptr;
}  // namespace detail

namespace {

using detail::Cache;
using detail::class_of;
using detail::kClasses;
using detail::kMinBytes;
using detail::t_cache;

constexpr bool kCacheEnabled = !kAddressSanitizer;

thread_local bool t_closed __attribute__((tls_model("initial-exec"))) = false;

// Frees the cached blocks when the thread ends; later releases go straight to free.
struct Flusher {
  ~Flusher() {
    if (Cache* cache = t_cache) {
      for (size_t c = 0; c < kClasses; ++c) {
        while (cache->counts[c] > 0) std::free(cache->blocks[c][--cache->counts[c]]);
      }
      t_cache = nullptr;
      delete cache;
    }
    t_closed = true;
  }
};
thread_local Flusher t_flusher;

// A DataPtr's deleter: the block goes back as a raw block of its class's size.
template <size_t kClass>
void release(void* block) {
  release_raw(block, kMinBytes << kClass);
}

template <size_t... C>
constexpr std::array<DeleterFn, kClasses> releasers(std::index_sequence<C...>) {
  return {&release<C>...};
}
constexpr std::array<DeleterFn, kClasses> kReleasers = releasers(std::make_index_sequence<kClasses>());

// Device's constructor is inline, so its index check folds away here: no function-local static
// (whose guard every block would test).
inline Device cpu_device() { return Device(DeviceType::CPU); }

// A block from the system: the cache is empty, or off.
// An aligned block of `bytes` from the system, or nullptr when it has none.
void* system_block(size_t bytes) {
  void* block = nullptr;
  return posix_memalign(&block, kCpuAlignment, bytes) == 0 ? block : nullptr;
}

[[gnu::noinline]] DataPtr allocate_new(size_t nbytes, size_t c) {
  void* block = system_block(kMinBytes << c);
  if (block == nullptr) TG_THROW(OutOfMemoryError, "[cpu_allocator] could not allocate ", nbytes, " bytes");
  return DataPtr(block, block, kCacheEnabled ? kReleasers[c] : &std::free, cpu_device());
}

// This thread's cache, made on its first block; nullptr once the thread is exiting, or when
// the cache is off. Out of line: touching t_flusher runs its TLS guard, which the common
// path (a cache already made) should not pay on every block.
[[gnu::noinline]] Cache* make_cache() {
  if (!kCacheEnabled || t_closed) return nullptr;
  (void)&t_flusher;  // constructs this thread's flusher, so the cache is emptied at thread exit
  return t_cache = new Cache{};
}

// A cached block of class c, or nullptr when there is none (or the cache is off).
inline void* take_cached(size_t c) {
  Cache* cache = t_cache;
  if (cache == nullptr) [[unlikely]] {
    cache = make_cache();
    if (cache == nullptr) return nullptr;
  }
  if (cache->counts[c] == 0) return nullptr;
  return cache->blocks[c][--cache->counts[c]];
}

}  // namespace

DataPtr allocate(size_t nbytes) {
  const size_t c = class_of(nbytes);
  if (void* block = take_cached(c)) return DataPtr(block, block, kReleasers[c], cpu_device());
  return allocate_new(nbytes, c);
}

namespace detail {
// The thread has no cache yet (or it is off), its class is empty, or nbytes is above the
// cache's sizes: a block from the system.
void* allocate_raw_uncached(size_t nbytes) {
  if (nbytes <= kMaxBytes) {
    if (void* block = take_cached(class_of(nbytes))) return block;  // the thread's first block
  }
  void* block = system_block(nbytes <= kMaxBytes ? kMinBytes << class_of(nbytes) : nbytes);
  if (block == nullptr) throw std::bad_alloc();
  return block;
}

// release_raw's cache could not keep the block: the class is full, the thread has no cache
// (it is exiting, or the cache is off), or nbytes is above the cache's sizes.
void release_raw_uncached(void* block, size_t /*nbytes*/) noexcept { std::free(block); }
}  // namespace detail

bool caching_enabled() { return kCacheEnabled; }

}  // namespace tg::small_block_cache
