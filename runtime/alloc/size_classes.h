// How the caching allocator sizes blocks and segments.
// Every block size is a multiple of kMinBlockSize: round_size(n) = max(512, 512 * ceil(n / 512)).
// A rounded request r lives in the small pool iff r <= kSmallSize; a new segment for it has
// segment_size(r) = 2 MiB (small), 20 MiB (large, r < 10 MiB), else r rounded up to 2 MiB.
#pragma once

#include <cstddef>

namespace tg::alloc {

inline constexpr size_t kMinBlockSize = 512;                 // granularity of every block
inline constexpr size_t kSmallSize = size_t{1} << 20;        // largest small-pool block: 1 MiB
inline constexpr size_t kSmallSegment = size_t{2} << 20;     // small requests share 2 MiB segments
inline constexpr size_t kLargeSegment = size_t{20} << 20;    // mid-size requests share 20 MiB segments
inline constexpr size_t kMinLargeAlloc = size_t{10} << 20;   // from 10 MiB, a segment fits its request
inline constexpr size_t kLargeRounding = size_t{2} << 20;    // ... rounded up to 2 MiB

constexpr size_t round_up(size_t n, size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

constexpr size_t round_size(size_t nbytes) {
  return nbytes < kMinBlockSize ? kMinBlockSize : round_up(nbytes, kMinBlockSize);
}

constexpr bool is_small_size(size_t rounded) { return rounded <= kSmallSize; }

constexpr size_t segment_size(size_t rounded) {
  if (is_small_size(rounded)) return kSmallSegment;
  if (rounded < kMinLargeAlloc) return kLargeSegment;
  return round_up(rounded, kLargeRounding);
}

// Whether a free block of block_size, chosen for a rounded request, is cut in two. The
// small pool splits off any remainder that can hold a block; the large pool only keeps a
// remainder bigger than kSmallSize, so large segments do not fill up with slivers that
// only small requests (which never look in the large pool) could use.
constexpr bool should_split(bool small_pool, size_t block_size, size_t rounded) {
  const size_t remaining = block_size - rounded;
  return small_pool ? remaining >= kMinBlockSize : remaining > kSmallSize;
}

}  // namespace tg::alloc
