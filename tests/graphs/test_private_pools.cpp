// Private pools of the caching allocator over the simulated backend: routing per stream,
// sharing and release on the last user, checkpoint/restore of the block map, max_split_size,
// the memory fraction and the out-of-memory retry path. See Note [Private pools].
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "alloc/caching_allocator.h"
#include "alloc/size_classes.h"
#include "alloc_test_helpers.h"
#include "core/error.h"

using namespace tg::alloc;
using namespace alloc_test;

namespace {

constexpr StreamId s1 = 1;
constexpr StreamId s2 = 2;

bool has(const std::vector<void*>& list, void* ptr) { return std::find(list.begin(), list.end(), ptr) != list.end(); }

}  // namespace

TEST_CASE("private pool: allocations on the routed stream come from the pool, others do not") {
  Device device(256 * MiB);
  CachingAllocator& a = device.allocator;
  const MempoolId pool = a.create_pool(0);
  a.begin_allocate_to_pool(0, pool, s1);
  void* in_pool = a.allocate(0, 1000, s1);
  void* other_stream = a.allocate(0, 1000, s2);
  a.end_allocate_to_pool(0, s1);
  void* after = a.allocate(0, 1000, s1);
  const MemorySnapshot snapshot = a.snapshot();
  CHECK(segment_of(snapshot, in_pool)->private_pool == pool.id);
  CHECK(segment_of(snapshot, other_stream)->private_pool == 0);
  CHECK(segment_of(snapshot, after)->private_pool == 0);
  CHECK(a.pool_reserved_bytes(0, pool) == kSmallSegment);

  // A freed pool block goes back to the pool: an ordinary allocation does not get it, the
  // next routed allocation does.
  a.free(in_pool);
  void* ordinary = a.allocate(0, 1000, s1);
  CHECK(ordinary != in_pool);
  a.begin_allocate_to_pool(0, pool, s1);
  CHECK(a.allocate(0, 1000, s1) == in_pool);
  a.end_allocate_to_pool(0, s1);
}

TEST_CASE("private pool: shared by two users, released when the last one releases it") {
  Device device(256 * MiB);
  CachingAllocator& a = device.allocator;
  const MempoolId pool = a.create_pool(0);
  a.retain_pool(0, pool);  // a second recording shares it
  a.begin_allocate_to_pool(0, pool, s1);
  void* kept = a.allocate(0, 12 * MiB, s1);
  void* temp = a.allocate(0, 1000, s1);
  a.end_allocate_to_pool(0, s1);
  a.free(temp);
  const int64_t frees_before = device.backend.free_count(0);
  a.release_pool(0, pool);
  a.empty_cache();  // a pool with a user keeps its cache
  CHECK(device.backend.free_count(0) == frees_before);
  CHECK(a.pool_reserved_bytes(0, pool) == 12 * MiB + kSmallSegment);

  a.release_pool(0, pool);  // last user: the free small segment goes back at once
  CHECK(device.backend.free_count(0) == frees_before + 1);
  CHECK(a.stats(0).reserved_bytes.current == static_cast<int64_t>(12 * MiB));
  a.free(kept);  // ... and the big one when its block is freed
  CHECK(a.stats(0).reserved_bytes.current == 0);
  CHECK(device.backend.live_allocations(0).empty());
  CHECK(contains(thrown<tg::Error>([&] { a.retain_pool(0, pool); }), "no private pool with id"));
}

TEST_CASE("private pool: checkpoint and restore reproduce the exact block map") {
  Device device(512 * MiB);
  CachingAllocator& a = device.allocator;
  const MempoolId pool = a.create_pool(0);
  a.begin_allocate_to_pool(0, pool, s1);
  void* x = a.allocate(0, 3000, s1);
  void* y = a.allocate(0, 5000, s1);
  void* z = a.allocate(0, 11 * MiB, s1);
  a.free(y);
  const PoolState checkpoint = a.checkpoint_pool(0, pool);
  const AllocatorStats stats_then = a.stats(0);
  REQUIRE(checkpoint.segments.size() == 2);

  // Another branch: carves the segments differently, takes new segments, frees x and z.
  void* p = a.allocate(0, 700, s1);
  void* q = a.allocate(0, 9000, s1);
  void* r = a.allocate(0, 11 * MiB + 4096, s1);
  void* big = a.allocate(0, 30 * MiB, s1);
  a.free(x);
  a.free(z);
  a.end_allocate_to_pool(0, s1);

  const PoolRestoreResult result = a.restore_pool(checkpoint);
  const PoolState now = a.checkpoint_pool(0, pool);
  REQUIRE(now.segments.size() == 4);  // segments taken after the checkpoint stay, whole and free
  int matched = 0;
  for (const CheckpointSegment& segment : now.segments) {
    if (segment == checkpoint.segments[0] || segment == checkpoint.segments[1]) {
      ++matched;
    } else {
      CHECK(segment.blocks.size() == 1);
      CHECK_FALSE(segment.blocks[0].allocated);
    }
  }
  CHECK(matched == 2);
  CHECK(has(result.allocated, x));
  CHECK(has(result.allocated, z));
  CHECK(result.allocated.size() == 2);
  for (void* ptr : {p, q, r, big}) CHECK(has(result.freed, ptr));
  const AllocatorStats stats_now = a.stats(0);
  CHECK(stats_now.allocated_bytes.current == stats_then.allocated_bytes.current);
  CHECK(stats_now.requested_bytes.current == stats_then.requested_bytes.current);
  CHECK(stats_now.allocations.current == 2);

  // The restored pointers are live again, the others are not.
  CHECK(contains(thrown<tg::Error>([&] { a.free(p); }), "is not a live allocation"));
  a.free(x);
  a.free(z);
  // A restored pool allocates from the checkpoint's layout.
  a.begin_allocate_to_pool(0, pool, s1);
  CHECK(a.allocate(0, 3000, s1) == x);
  a.end_allocate_to_pool(0, s1);
}

TEST_CASE("private pool: restoring a checkpoint whose segment was released is refused") {
  Device device(256 * MiB);
  CachingAllocator& a = device.allocator;
  const MempoolId pool = a.create_pool(0);
  a.begin_allocate_to_pool(0, pool, s1);
  void* x = a.allocate(0, 12 * MiB, s1);
  a.end_allocate_to_pool(0, s1);
  const PoolState checkpoint = a.checkpoint_pool(0, pool);
  a.retain_pool(0, pool);
  a.release_pool(0, pool);
  a.free(x);
  a.release_pool(0, pool);  // the last user: the segment goes back, and the pool is gone
  CHECK(contains(thrown<tg::Error>([&] { a.restore_pool(checkpoint); }), "no private pool with id"));

  const MempoolId other = a.create_pool(0);
  PoolState forged = a.checkpoint_pool(0, other);
  forged.segments.push_back({0x1000, 4096, s1, false, {{0x1000, 4096, 0, false}}});
  CHECK(contains(thrown<tg::Error>([&] { a.restore_pool(forged); }), "is no longer a segment of pool"));
}

TEST_CASE("private pool: bad calls say what is wrong") {
  Device device(64 * MiB);
  CachingAllocator& a = device.allocator;
  const MempoolId pool = a.create_pool(0);
  a.begin_allocate_to_pool(0, pool, s1);
  CHECK(contains(thrown<tg::Error>([&] { a.begin_allocate_to_pool(0, pool, s1); }), "already allocates to pool"));
  CHECK(contains(thrown<tg::Error>([&] { a.release_pool(0, pool); }), "is still routed to stream 1"));
  a.end_allocate_to_pool(0, s1);
  CHECK(contains(thrown<tg::Error>([&] { a.end_allocate_to_pool(0, s1); }), "does not allocate to a private pool"));
  CHECK(contains(thrown<tg::Error>([&] { a.checkpoint_pool(0, MempoolId{99}); }), "no private pool with id 99"));
  CHECK(contains(thrown<tg::Error>([&] { a.create_pool(3); }), "out of range"));
  a.release_pool(0, pool);
}

TEST_CASE("max_split_size: big cached blocks are neither split nor taken by small requests") {
  CachingAllocatorOptions options;
  options.max_split_size = 8 * MiB;
  Device device(512 * MiB, options);
  CachingAllocator& a = device.allocator;
  void* big = a.allocate(0, 30 * MiB, s1);
  a.free(big);
  void* small_large = a.allocate(0, 2 * MiB, s1);  // below max_split_size: not from the 30 MiB block
  CHECK(small_large != big);
  CHECK(a.stats(0).segments.current == 2);
  void* big2 = a.allocate(0, 24 * MiB, s1);  // above it, and wastes less than 20 MiB: reuses, unsplit
  CHECK(big2 == big);
  CHECK(block_at(a.snapshot(), big2)->size == 30 * MiB);
  a.free(big2);
  void* huge_waste = a.allocate(0, 9 * MiB, s1);  // would waste 21 MiB: a new segment
  CHECK(huge_waste != big);

  Device plain(512 * MiB);
  void* b = plain.allocator.allocate(0, 30 * MiB, s1);
  plain.allocator.free(b);
  CHECK(plain.allocator.allocate(0, 2 * MiB, s1) == b);  // without the option, it is split
  CHECK(contains(thrown<tg::Error>([] {
                   CachingAllocatorOptions bad;
                   bad.max_split_size = 4096;
                   SimulatedBackend backend(MiB);
                   CachingAllocator allocator(backend, bad);
                 }),
                 "max_split_size must be larger than"));
}

TEST_CASE("memory fraction: new segments stop at the fraction; cached ones are freed and retried first") {
  Device device(100 * MiB);
  CachingAllocator& a = device.allocator;
  void* cached = a.allocate(0, 40 * MiB, s1);
  a.free(cached);
  a.set_memory_fraction(0, 0.5);
  // Needs a new 44 MiB segment: 40 + 44 > 50, so the cache is freed and the retry fits.
  void* x = a.allocate(0, 44 * MiB, s1);
  CHECK(x != nullptr);
  CHECK(a.stats(0).oom_retries == 1);
  CHECK(a.stats(0).reserved_bytes.current == static_cast<int64_t>(44 * MiB));
  std::string message;
  try {
    a.allocate(0, 10 * MiB, s1);
  } catch (const tg::OutOfMemoryError& e) {
    message = e.message();
  }
  CHECK(contains(message, "tried to allocate 10.00 MiB"));
  CHECK(contains(message, "44.00 MiB reserved"));
  CHECK(contains(message, "of which 56.00 MiB is free"));
  CHECK(contains(message, "at most 0.5"));
  CHECK(a.stats(0).ooms == 1);
  CHECK(contains(thrown<tg::Error>([&] { a.set_memory_fraction(0, 1.5); }), "fraction must be in (0, 1]"));
  a.free(x);
}

TEST_CASE("empty_cache returns only whole free segments, and leaves pools with users alone") {
  Device device(256 * MiB);
  CachingAllocator& a = device.allocator;
  void* live = a.allocate(0, 1000, s1);
  void* freed = a.allocate(0, 12 * MiB, s1);
  a.free(freed);
  const MempoolId pool = a.create_pool(0);
  a.begin_allocate_to_pool(0, pool, s2);
  a.free(a.allocate(0, 12 * MiB, s2));
  a.end_allocate_to_pool(0, s2);
  a.empty_cache();
  const MemorySnapshot snapshot = a.snapshot();
  REQUIRE(snapshot.segments.size() == 2);
  CHECK(segment_of(snapshot, live) != nullptr);
  CHECK(a.pool_reserved_bytes(0, pool) == 12 * MiB);
  a.release_pool(0, pool);
  CHECK(a.pool_reserved_bytes(0, pool) == 0);
  a.free(live);
}
