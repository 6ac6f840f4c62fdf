// Settings of a caching allocator, fixed at construction (PyTorch reads the same ones from
// PYTORCH_CUDA_ALLOC_CONF). Invariants: 0 <= garbage_collection_threshold <= 1;
// max_split_size > 1 MiB (the small pool never splits a large block anyway).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tg::alloc {

struct CachingAllocatorOptions {
  // A fraction of each device's capacity. When a new segment would take the reserved bytes
  // above it, cached segments nobody uses are freed first, least recently used first.
  // 0 turns garbage collection off. See Note [Garbage-collection threshold].
  double garbage_collection_threshold = 0.0;
  // Blocks of at least this size are never split, and a request smaller than it never takes
  // one: big cached blocks are not eaten by small requests. See Note [max_split_size].
  size_t max_split_size = SIZE_MAX;
};

}  // namespace tg::alloc
