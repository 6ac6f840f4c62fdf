// Objects made on every operation (a result's TensorImpl and StorageImpl, its AutogradMeta,
// an autograd Node) take their memory from the per-thread small block cache
// (core/small_block_cache.h) instead of malloc: a cached block costs about 20 instructions,
// malloc plus free about 130.
#pragma once

#include <cstddef>

#include "core/small_block_cache.h"

namespace tg {

// A base whose class-specific operator new and delete use the cache. Delete derived objects
// through a virtual destructor (or as their own type), so that operator delete receives the
// size that operator new was asked for.
struct PooledObject {
  static void* operator new(size_t nbytes) { return small_block_cache::allocate_raw(nbytes); }
  static void operator delete(void* object, size_t nbytes) noexcept { small_block_cache::release_raw(object, nbytes); }
};

// The same for std::allocate_shared (autograd::make_node).
template <typename T>
struct PooledAllocator {
  using value_type = T;
  PooledAllocator() = default;
  template <typename U>
  PooledAllocator(const PooledAllocator<U>&) noexcept {}  // NOLINT: rebinding, as allocators do
  T* allocate(size_t n) { return static_cast<T*>(small_block_cache::allocate_raw(n * sizeof(T))); }
  void deallocate(T* block, size_t n) noexcept { small_block_cache::release_raw(block, n * sizeof(T)); }
  template <typename U>
  bool operator==(const PooledAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace tg
