// Small CPU blocks are reused per thread instead of going back to malloc: a 1-element
// tensor's data is a 64-byte-aligned block, and posix_memalign plus free cost about 500
// instructions, a fifth of a whole small operator. Each thread keeps up to kBlocksPerClass
// freed blocks of each size class (64 bytes to 4 KiB, powers of two), so at most
// 32 x 8 KiB are held per thread; a block freed on another thread joins that thread's cache.
// Under AddressSanitizer blocks are not cached, so use-after-free is still reported.
#pragma once

#include <cstddef>

#include "core/allocator.h"

namespace tg::small_block_cache {

// The largest size served from the cache.
inline constexpr size_t kMaxBytes = 4096;

// A block of at least nbytes (1 <= nbytes <= kMaxBytes), aligned to kCpuAlignment, that
// returns to the calling thread's cache (or to free) when the DataPtr lets it go. Throws
// tg::OutOfMemoryError when the system has no memory.
DataPtr allocate(size_t nbytes);

// The same per-thread cache for objects made on every operation (RefCounted's operator new:
// TensorImpl, StorageImpl), without a DataPtr: a block of at least nbytes, aligned to
// kCpuAlignment; nbytes above kMaxBytes come from the system. release_raw takes the nbytes
// that allocate_raw was given. Throws std::bad_alloc when the system has no memory, as an
// operator new must.
void* allocate_raw(size_t nbytes);
void release_raw(void* block, size_t nbytes) noexcept;

// Whether freed blocks are kept (false under AddressSanitizer).
bool caching_enabled();

}  // namespace tg::small_block_cache
