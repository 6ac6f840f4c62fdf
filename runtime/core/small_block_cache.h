// Small CPU blocks are reused per thread instead of going back to malloc: a 1-element
// tensor's data is a 64-byte-aligned block, and posix_memalign plus free cost about 500
// instructions, a fifth of a whole small operator. Each thread keeps up to kBlocksPerClass
// freed blocks of each size class (64 bytes to 4 KiB, powers of two), so at most
// 32 x 8 KiB are held per thread; a block freed on another thread joins that thread's cache.
// Under AddressSanitizer blocks are not cached, so use-after-free is still reported.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "core/allocator.h"

namespace tg::small_block_cache {

// The largest size served from the cache.
inline constexpr size_t kMaxBytes = 4096;

// A block of at least nbytes (1 <= nbytes <= kMaxBytes), aligned to kCpuAlignment, that
// returns to the calling thread's cache (or to free) when the DataPtr lets it go. Throws
// tg::OutOfMemoryError when the system has no memory.
DataPtr allocate(size_t nbytes);

namespace detail {
inline constexpr size_t kMinBytes = 64;  // = kCpuAlignment: smaller blocks could not be aligned anyway
inline constexpr size_t kClasses = 7;    // 64, 128, ..., 4096 bytes
inline constexpr size_t kBlocksPerClass = 32;
static_assert(kMinBytes << (kClasses - 1) == kMaxBytes);

// A thread's cached blocks: blocks[c][0 .. counts[c]) of class c.
struct Cache {
  void* blocks[kClasses][kBlocksPerClass];
  uint32_t counts[kClasses];
};
// The cache lives on the heap and the thread keeps only a pointer to it (null until the
// thread's first block, after the thread's exit, and always under AddressSanitizer): a shared
// library whose static TLS block is large cannot be dlopen'ed (the Python extension loads it
// so), and the dispatcher's key set uses the initial-exec model, which puts this library's
// whole TLS block in static TLS. See Note [Static TLS] in docs/python.md. constinit: read
// directly, with no TLS wrapper call; initial-exec: no __tls_get_addr call.
extern thread_local constinit Cache* t_cache __attribute__((tls_model("initial-exec")));

constexpr size_t class_of(size_t nbytes) {
  return static_cast<size_t>(std::bit_width(std::max(nbytes, kMinBytes) - 1) - std::bit_width(kMinBytes - 1));
}

// What allocate_raw and release_raw do when the cache cannot serve them.
void* allocate_raw_uncached(size_t nbytes);
void release_raw_uncached(void* block, size_t nbytes) noexcept;
}  // namespace detail

// The same per-thread cache for objects made on every operation (RefCounted's operator new:
// TensorImpl, StorageImpl), without a DataPtr: a block of at least nbytes, aligned to
// kCpuAlignment; nbytes above kMaxBytes come from the system. release_raw takes the nbytes
// that allocate_raw was given. Throws std::bad_alloc when the system has no memory, as an
// operator new must. Inline: an operator new's size is a constant, so its class is too.
inline void* allocate_raw(size_t nbytes) {
  if (nbytes <= kMaxBytes) [[likely]] {
    detail::Cache* cache = detail::t_cache;
    const size_t c = detail::class_of(nbytes);
    if (cache != nullptr && cache->counts[c] != 0) [[likely]] return cache->blocks[c][--cache->counts[c]];
  }
  return detail::allocate_raw_uncached(nbytes);
}
inline void release_raw(void* block, size_t nbytes) noexcept {
  if (nbytes <= kMaxBytes) [[likely]] {
    detail::Cache* cache = detail::t_cache;
    const size_t c = detail::class_of(nbytes);
    if (cache != nullptr && cache->counts[c] != detail::kBlocksPerClass) [[likely]] {
      cache->blocks[c][cache->counts[c]++] = block;
      return;
    }
  }
  detail::release_raw_uncached(block, nbytes);
}

// Whether freed blocks are kept (false under AddressSanitizer).
bool caching_enabled();

}  // namespace tg::small_block_cache
