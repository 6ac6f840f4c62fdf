// Helpers for the caching allocator tests: a simulated device with its allocator, error
// capture, and lookups in a MemorySnapshot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "alloc/caching_allocator.h"
#include "alloc/memory_snapshot.h"
#include "alloc/simulated_backend.h"
#include "test_helpers.h"

namespace alloc_test {

inline constexpr size_t KiB = size_t{1} << 10;
inline constexpr size_t MiB = size_t{1} << 20;

// A simulated backend and a caching allocator over it; the allocator is destroyed first.
struct Device {
  explicit Device(size_t capacity, tg::alloc::CachingAllocatorOptions options = {}, int device_count = 1)
      : backend(capacity, device_count), allocator(backend, options) {}

  tg::alloc::SimulatedBackend backend;
  tg::alloc::CachingAllocator allocator;
};

inline char* as_bytes(void* ptr) { return static_cast<char*>(ptr); }

using test_helpers::contains;
using test_helpers::thrown;

// The segment holding ptr, or nullptr.
inline const tg::alloc::SegmentSnapshot* segment_of(const tg::alloc::MemorySnapshot& snapshot, const void* ptr) {
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  for (const auto& segment : snapshot.segments) {
    if (address >= segment.address && address < segment.address + segment.size) return &segment;
  }
  return nullptr;
}

// The block starting at ptr, or nullptr.
inline const tg::alloc::BlockSnapshot* block_at(const tg::alloc::MemorySnapshot& snapshot, const void* ptr) {
  const tg::alloc::SegmentSnapshot* segment = segment_of(snapshot, ptr);
  if (segment == nullptr) return nullptr;
  for (const auto& block : segment->blocks) {
    if (block.address == reinterpret_cast<uintptr_t>(ptr)) return &block;
  }
  return nullptr;
}

}  // namespace alloc_test
