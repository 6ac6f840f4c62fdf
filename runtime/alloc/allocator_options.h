// Settings of a caching allocator, fixed at construction (PyTorch reads the same ones from
// PYTORCH_CUDA_ALLOC_CONF). Invariant: 0 <= garbage_collection_threshold <= 1.
#pragma once

namespace tg::alloc {

struct CachingAllocatorOptions {
  // A fraction of each device's capacity. When a new segment would take the reserved bytes
  // above it, cached segments nobody uses are freed first, least recently used first.
  // 0 turns garbage collection off. See Note [Garbage-collection threshold].
  double garbage_collection_threshold = 0.0;
};

}  // namespace tg::alloc
