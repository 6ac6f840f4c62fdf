// Tests for the caching allocator core over the simulated backend: size classes, pools,
// splitting and merging, per-stream reuse, record_stream, out-of-memory handling, the
// garbage-collection threshold, empty_cache, statistics, snapshots and bad inputs.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "alloc/caching_allocator.h"
#include "alloc/size_classes.h"
#include "alloc_test_helpers.h"
#include "core/error.h"
#include "json_reader.h"

using namespace tg::alloc;
using namespace alloc_test;

namespace {

constexpr StreamId s1 = 1;
constexpr StreamId s2 = 2;
constexpr StreamId s3 = 3;

}  // namespace

TEST_CASE("size classes: 512-byte rounding, the small/large boundary and segment sizes") {
  CHECK(round_size(0) == 512);
  CHECK(round_size(1) == 512);
  CHECK(round_size(512) == 512);
  CHECK(round_size(513) == 1024);
  CHECK(round_size(MiB) == MiB);
  CHECK(is_small_size(MiB));
  CHECK_FALSE(is_small_size(MiB + 512));
  CHECK(segment_size(512) == 2 * MiB);
  CHECK(segment_size(MiB) == 2 * MiB);
  CHECK(segment_size(MiB + 512) == 20 * MiB);
  CHECK(segment_size(10 * MiB - 512) == 20 * MiB);
  CHECK(segment_size(10 * MiB) == 10 * MiB);
  CHECK(segment_size(10 * MiB + 512) == 12 * MiB);
}

TEST_CASE("allocations are rounded up to 512 bytes; requested_bytes keeps the size asked for") {
  Device device(64 * MiB);
  void* a = device.allocator.allocate(0, 1, s1);
  void* b = device.allocator.allocate(0, 513, s1);
  const MemorySnapshot snapshot = device.allocator.snapshot();
  CHECK(block_at(snapshot, a)->size == 512);
  CHECK(block_at(snapshot, a)->requested_size == 1);
  CHECK(block_at(snapshot, b)->size == 1024);
  CHECK(as_bytes(b) == as_bytes(a) + 512);
  const AllocatorStats stats = device.allocator.stats(0);
  CHECK(stats.allocated_bytes.current == 1536);
  CHECK(stats.requested_bytes.current == 514);
  CHECK(device.allocator.allocate(0, 0, s1) == nullptr);
  CHECK(device.allocator.stats(0).allocations.current == 2);
}

TEST_CASE("small requests share 2 MiB segments; large ones get 20 MiB or their own rounded size") {
  Device device(256 * MiB);
  void* small = device.allocator.allocate(0, MiB, s1);
  // Each on its own stream, so that none fits in another's cached remainder.
  void* mid = device.allocator.allocate(0, MiB + 1, s1);
  void* big = device.allocator.allocate(0, 10 * MiB, s2);
  void* bigger = device.allocator.allocate(0, 11 * MiB, s3);
  const MemorySnapshot snapshot = device.allocator.snapshot();
  REQUIRE(snapshot.segments.size() == 4);
  CHECK(segment_of(snapshot, small)->small_pool);
  CHECK(segment_of(snapshot, small)->size == 2 * MiB);
  CHECK_FALSE(segment_of(snapshot, mid)->small_pool);
  CHECK(segment_of(snapshot, mid)->size == 20 * MiB);
  CHECK(segment_of(snapshot, big)->size == 10 * MiB);
  CHECK(segment_of(snapshot, bigger)->size == 12 * MiB);
  CHECK(device.allocator.stats(0).reserved_bytes.current == int64_t(44 * MiB));
  CHECK(device.backend.bytes_in_use(0) == 44 * MiB);

  // Fill the small segment. The 20 MiB segment has 19 MiB free, but a small request never
  // looks in the large pool, so it gets a new small segment.
  void* second = device.allocator.allocate(0, MiB, s1);
  CHECK(as_bytes(second) == as_bytes(small) + MiB);
  void* tiny = device.allocator.allocate(0, 4 * KiB, s1);
  const MemorySnapshot after = device.allocator.snapshot();
  CHECK(segment_of(after, tiny)->small_pool);
  CHECK(segment_of(after, tiny)->address != segment_of(after, small)->address);
  CHECK(device.backend.malloc_count(0) == 5);
}

TEST_CASE("splitting: small blocks are carved from one segment, the large pool keeps only remainders above 1 MiB") {
  Device device(256 * MiB);
  void* a = device.allocator.allocate(0, 1000, s1);
  void* b = device.allocator.allocate(0, 1000, s1);
  CHECK(as_bytes(b) == as_bytes(a) + 1024);
  const MemorySnapshot first = device.allocator.snapshot();
  const SegmentSnapshot& small = *segment_of(first, a);
  REQUIRE(small.blocks.size() == 3);
  CHECK(small.blocks[2].state == BlockState::free);
  CHECK(small.blocks[2].size == 2 * MiB - 2048);

  // A small remainder of exactly 512 bytes is still split off; no remainder, no split.
  Device exact(256 * MiB);
  void* half = exact.allocator.allocate(0, MiB - 512, s1);
  void* rest = exact.allocator.allocate(0, MiB, s1);
  void* last = exact.allocator.allocate(0, 512, s1);
  CHECK(as_bytes(rest) == as_bytes(half) + MiB - 512);
  CHECK(as_bytes(last) == as_bytes(rest) + MiB);
  CHECK(exact.backend.malloc_count(0) == 1);
  CHECK(segment_of(exact.allocator.snapshot(), half)->blocks.size() == 3);

  void* five = device.allocator.allocate(0, 5 * MiB, s1);
  const MemorySnapshot second = device.allocator.snapshot();
  const SegmentSnapshot& large = *segment_of(second, five);
  REQUIRE(large.blocks.size() == 2);
  CHECK(large.blocks[0].size == 5 * MiB);
  CHECK(large.blocks[1].size == 15 * MiB);

  // 19.5 MiB in a new 20 MiB segment leaves 0.5 MiB: not worth a block, so the whole
  // segment is handed out and counted as allocated.
  void* most = device.allocator.allocate(0, 19 * MiB + 512 * KiB, s2);
  CHECK(block_at(device.allocator.snapshot(), most)->size == 20 * MiB);
  CHECK(device.allocator.stats(0).allocated_bytes.current == int64_t(2048 + 5 * MiB + 20 * MiB));
}

TEST_CASE("freeing merges a block with its free neighbours; the merged block is reused") {
  Device device(64 * MiB);
  void* a = device.allocator.allocate(0, 4 * KiB, s1);
  void* b = device.allocator.allocate(0, 4 * KiB, s1);
  void* c = device.allocator.allocate(0, 4 * KiB, s1);
  device.allocator.free(a);
  device.allocator.free(c);
  {
    const SegmentSnapshot segment = device.allocator.snapshot().segments.at(0);
    REQUIRE(segment.blocks.size() == 3);  // [a free][b][c merged with the free tail]
    CHECK(segment.blocks[0].state == BlockState::free);
    CHECK(segment.blocks[1].state == BlockState::allocated);
    CHECK(segment.blocks[2].size == 2 * MiB - 8 * KiB);
  }
  device.allocator.free(b);
  const SegmentSnapshot segment = device.allocator.snapshot().segments.at(0);
  REQUIRE(segment.blocks.size() == 1);
  CHECK(segment.blocks[0].size == 2 * MiB);
  CHECK(segment.blocks[0].state == BlockState::free);

  CHECK(device.allocator.allocate(0, MiB, s1) == a);
  CHECK(device.backend.malloc_count(0) == 1);
  CHECK(device.backend.free_count(0) == 0);
}

TEST_CASE("the smallest free block of the stream that fits is reused") {
  Device device(64 * MiB);
  std::vector<void*> kept;
  auto with_separator = [&](size_t nbytes) {
    void* p = device.allocator.allocate(0, nbytes, s1);
    kept.push_back(device.allocator.allocate(0, 512, s1));  // keeps p from merging
    return p;
  };
  void* a = with_separator(4 * KiB);
  void* b = with_separator(64 * KiB);
  void* c = with_separator(16 * KiB);
  for (void* p : {a, b, c}) device.allocator.free(p);
  CHECK(device.allocator.allocate(0, 10 * KiB, s1) == c);
  CHECK(device.allocator.allocate(0, 3 * KiB, s1) == a);
  CHECK(device.allocator.allocate(0, 20 * KiB, s1) == b);
}

TEST_CASE("a freed block is reused only by the stream it was allocated on") {
  Device device(64 * MiB);
  void* p = device.allocator.allocate(0, 1000, s1);
  device.allocator.free(p);
  void* q = device.allocator.allocate(0, 1000, s2);
  CHECK(q != p);
  CHECK(segment_of(device.allocator.snapshot(), q)->stream == s2);
  CHECK(segment_of(device.allocator.snapshot(), p)->stream == s1);
  CHECK(device.backend.malloc_count(0) == 2);
  CHECK(device.allocator.allocate(0, 1000, s1) == p);
  CHECK(device.backend.malloc_count(0) == 2);

  // Whichever stream id is lower: a block cached for s3 is not handed to s2 either.
  Device other(64 * MiB);
  void* r = other.allocator.allocate(0, 64 * KiB, s3);
  other.allocator.free(r);
  void* t = other.allocator.allocate(0, 64 * KiB, s2);
  CHECK(segment_of(other.allocator.snapshot(), t)->stream == s2);
  CHECK(t != r);
}

TEST_CASE("record_stream: a freed block is not reused until the other stream's event is done") {
  Device device(64 * MiB);
  void* p = device.allocator.allocate(0, 4 * KiB, s1);
  device.allocator.record_stream(p, s2);
  device.allocator.free(p);
  CHECK(device.backend.live_event_count() == 1);
  CHECK(block_at(device.allocator.snapshot(), p)->state == BlockState::pending_free);
  AllocatorStats stats = device.allocator.stats(0);
  CHECK(stats.allocated_bytes.current == 0);
  CHECK(stats.active_bytes.current == int64_t(4 * KiB));

  void* q = device.allocator.allocate(0, 4 * KiB, s1);
  CHECK(q != p);
  // Its neighbour q is allocated, and the pending block does not merge with the free tail.
  device.allocator.free(q);
  CHECK(block_at(device.allocator.snapshot(), p)->state == BlockState::pending_free);
  CHECK(block_at(device.allocator.snapshot(), p)->size == 4 * KiB);

  device.backend.finish_stream(0, s2);
  // The event is seen done at the next allocation, which can then reuse the block.
  CHECK(device.allocator.allocate(0, 4 * KiB, s1) == p);
  CHECK(device.backend.live_event_count() == 0);
  stats = device.allocator.stats(0);
  CHECK(stats.active_bytes.current == int64_t(4 * KiB));
  CHECK(stats.allocated_bytes.current == int64_t(4 * KiB));
}

TEST_CASE("record_stream on several streams waits for all; on the allocation stream it records nothing") {
  Device device(64 * MiB);
  void* own = device.allocator.allocate(0, 4 * KiB, s1);
  device.allocator.record_stream(own, s1);
  device.allocator.free(own);
  CHECK(device.backend.live_event_count() == 0);
  CHECK(block_at(device.allocator.snapshot(), own)->state == BlockState::free);

  void* p = device.allocator.allocate(0, 4 * KiB, s1);
  CHECK(p == own);
  device.allocator.record_stream(p, s2);
  device.allocator.record_stream(p, s3);
  device.allocator.record_stream(p, s2);
  device.allocator.free(p);
  CHECK(device.backend.live_event_count() == 2);

  device.backend.finish_stream(0, s2);
  void* other = device.allocator.allocate(0, 8 * KiB, s1);
  CHECK(device.backend.live_event_count() == 1);
  CHECK(block_at(device.allocator.snapshot(), p)->state == BlockState::pending_free);

  device.backend.finish_stream(0, s3);
  device.allocator.free(other);
  void* again = device.allocator.allocate(0, MiB, s1);
  CHECK(again == p);  // p, other and the tail merged into the whole segment again
  CHECK(segment_of(device.allocator.snapshot(), p)->blocks.size() == 2);
  CHECK(device.backend.live_event_count() == 0);
  CHECK(device.backend.malloc_count(0) == 1);
}

TEST_CASE("out of memory: unused cached segments are freed and the allocation retried") {
  Device device(64 * MiB);
  void* p = device.allocator.allocate(0, 40 * MiB, s1);
  device.allocator.free(p);
  void* q = device.allocator.allocate(0, 30 * MiB, s2);  // cannot reuse s1's cached 40 MiB
  CHECK(q != nullptr);
  const AllocatorStats stats = device.allocator.stats(0);
  CHECK(stats.oom_retries == 1);
  CHECK(stats.ooms == 0);
  CHECK(stats.raw_frees == 1);
  CHECK(stats.reserved_bytes.current == int64_t(30 * MiB));
  CHECK(stats.reserved_bytes.peak == int64_t(40 * MiB));
  CHECK(device.backend.failed_malloc_count(0) == 1);
  CHECK(device.backend.live_allocations(0).count(reinterpret_cast<uintptr_t>(p)) == 0);
}

TEST_CASE("out of memory: the retry waits for pending frees, and may reuse a block they free") {
  Device device(64 * MiB);
  void* p = device.allocator.allocate(0, 40 * MiB, s1);
  device.allocator.record_stream(p, s2);
  device.allocator.free(p);
  CHECK(device.allocator.allocate(0, 30 * MiB, s3) != nullptr);
  CHECK(device.backend.synchronize_count() == 1);
  CHECK(device.backend.live_event_count() == 0);
  CHECK(device.allocator.stats(0).raw_frees == 1);

  // A pending block inside a segment that stays (its neighbour is live) is reused directly.
  Device tight(24 * MiB);
  void* a = tight.allocator.allocate(0, 5 * MiB, s1);
  void* x = tight.allocator.allocate(0, 15 * MiB, s1);
  CHECK(as_bytes(x) == as_bytes(a) + 5 * MiB);
  tight.allocator.record_stream(x, s2);
  tight.allocator.free(x);
  CHECK(tight.allocator.allocate(0, 15 * MiB, s1) == x);
  CHECK(tight.allocator.stats(0).oom_retries == 1);
  CHECK(tight.backend.malloc_count(0) == 1);
}

TEST_CASE("out of memory with nothing to free throws OutOfMemoryError with the figures") {
  Device device(64 * MiB);
  void* a = device.allocator.allocate(0, 40 * MiB, s1);
  device.allocator.allocate(0, MiB, s1);
  const std::string message =
      thrown<tg::OutOfMemoryError>([&] { device.allocator.allocate(0, 30 * MiB, s1); });
  INFO(message);
  CHECK(contains(message, "[CachingAllocator] out of memory on device 0"));
  CHECK(contains(message, "tried to allocate 30.00 MiB (31457280 bytes"));
  CHECK(contains(message, "total capacity of 64.00 MiB, of which 22.00 MiB is free"));
  CHECK(contains(message, "41.00 MiB allocated and 42.00 MiB reserved"));
  CHECK(contains(message, "1.00 MiB is reserved but unallocated"));
  AllocatorStats stats = device.allocator.stats(0);
  CHECK(stats.ooms == 1);
  CHECK(stats.oom_retries == 1);
  CHECK(stats.reserved_bytes.current == int64_t(42 * MiB));

  // The allocator is intact: after a free, the same request fits in the cached segment.
  device.allocator.free(a);
  CHECK(device.allocator.allocate(0, 30 * MiB, s1) == a);
  CHECK(device.backend.malloc_count(0) == 2);

  const std::string huge = thrown<tg::OutOfMemoryError>(
      [&] { device.allocator.allocate(0, std::numeric_limits<size_t>::max(), s1); });
  CHECK(contains(huge, "out of memory on device 0"));
}

TEST_CASE("garbage-collection threshold frees the least recently freed unused segments first") {
  Device device(100 * MiB, CachingAllocatorOptions{.garbage_collection_threshold = 0.5});
  void* a = device.allocator.allocate(0, 12 * MiB, s1);
  void* b = device.allocator.allocate(0, 14 * MiB, s1);
  void* c = device.allocator.allocate(0, 16 * MiB, s1);
  device.allocator.free(b);
  device.allocator.free(a);
  device.allocator.free(c);
  // 42 MiB reserved + a new 10 MiB segment > 50 MiB: b, freed first, goes.
  void* d = device.allocator.allocate(0, 10 * MiB, s2);
  auto live = [&] { return device.backend.live_allocations(0); };
  CHECK(live().count(reinterpret_cast<uintptr_t>(b)) == 0);
  CHECK(live().count(reinterpret_cast<uintptr_t>(a)) == 1);
  CHECK(live().count(reinterpret_cast<uintptr_t>(c)) == 1);
  CHECK(device.allocator.stats(0).gc_released_segments == 1);
  CHECK(device.allocator.stats(0).reserved_bytes.current == int64_t(38 * MiB));

  // Split segments and segments in use are never collected: a is split by e, so c goes.
  void* e = device.allocator.allocate(0, 4 * MiB, s1);
  CHECK(e == a);
  device.allocator.allocate(0, 20 * MiB, s3);
  CHECK(live().count(reinterpret_cast<uintptr_t>(a)) == 1);
  CHECK(live().count(reinterpret_cast<uintptr_t>(c)) == 0);
  CHECK(live().count(reinterpret_cast<uintptr_t>(d)) == 1);
  const AllocatorStats stats = device.allocator.stats(0);
  CHECK(stats.gc_released_segments == 2);
  CHECK(stats.oom_retries == 0);

  // With nothing unused, reserved grows past the threshold: it is a target, not a limit.
  device.allocator.allocate(0, 30 * MiB, s3);
  CHECK(device.allocator.stats(0).reserved_bytes.current == int64_t(72 * MiB));
}

TEST_CASE("without a garbage-collection threshold, cached segments stay until memory runs out") {
  Device device(100 * MiB);
  for (size_t size : {12 * MiB, 14 * MiB, 16 * MiB}) device.allocator.free(device.allocator.allocate(0, size, s1));
  device.allocator.allocate(0, 10 * MiB, s2);
  device.allocator.allocate(0, 20 * MiB, s3);
  CHECK(device.backend.free_count(0) == 0);
  CHECK(device.allocator.stats(0).reserved_bytes.current == int64_t(72 * MiB));
}

TEST_CASE("empty_cache returns every unused segment to the backend and waits for pending frees") {
  Device device(256 * MiB);
  void* keep = device.allocator.allocate(0, 4 * KiB, s1);
  device.allocator.free(device.allocator.allocate(0, 4 * KiB, s2));
  device.allocator.free(device.allocator.allocate(0, 30 * MiB, s1));
  void* pending = device.allocator.allocate(0, 5 * MiB, s3);
  device.allocator.record_stream(pending, s1);
  device.allocator.free(pending);
  CHECK(device.backend.live_allocations(0).size() == 4);

  device.allocator.empty_cache();
  const auto live = device.backend.live_allocations(0);
  REQUIRE(live.size() == 1);
  CHECK(live.begin()->first == reinterpret_cast<uintptr_t>(keep));
  CHECK(device.backend.live_event_count() == 0);
  CHECK(device.allocator.stats(0).reserved_bytes.current == int64_t(2 * MiB));

  device.allocator.free(keep);
  device.allocator.empty_cache();
  CHECK(device.backend.bytes_in_use(0) == 0);
  CHECK(device.backend.malloc_count(0) == device.backend.free_count(0));
  CHECK(device.allocator.snapshot().segments.empty());
}

TEST_CASE("destroying the allocator returns its cached segments") {
  SimulatedBackend backend(64 * MiB);
  {
    CachingAllocator allocator(backend);
    void* p = allocator.allocate(0, 3 * MiB, s1);
    allocator.record_stream(p, s2);
    allocator.free(p);
    allocator.free(allocator.allocate(0, 100, s1));
  }
  CHECK(backend.bytes_in_use(0) == 0);
  CHECK(backend.live_event_count() == 0);
  CHECK(backend.malloc_count(0) == 2);
  CHECK(backend.free_count(0) == 2);
}

TEST_CASE("statistics: current values follow each operation and peaks hold until reset") {
  Device device(256 * MiB);
  void* a = device.allocator.allocate(0, 1000, s1);
  void* b = device.allocator.allocate(0, 5 * MiB, s1);
  AllocatorStats stats = device.allocator.stats(0);
  CHECK(stats.allocated_bytes.current == int64_t(1024 + 5 * MiB));
  CHECK(stats.requested_bytes.current == int64_t(1000 + 5 * MiB));
  CHECK(stats.active_bytes.current == stats.allocated_bytes.current);
  CHECK(stats.reserved_bytes.current == int64_t(22 * MiB));
  CHECK(stats.allocations.current == 2);
  CHECK(stats.segments.current == 2);
  CHECK(stats.raw_mallocs == 2);

  device.allocator.free(a);
  stats = device.allocator.stats(0);
  CHECK(stats.allocated_bytes.current == int64_t(5 * MiB));
  CHECK(stats.allocated_bytes.peak == int64_t(1024 + 5 * MiB));
  CHECK(stats.requested_bytes.peak == int64_t(1000 + 5 * MiB));
  CHECK(stats.allocations.peak == 2);

  device.allocator.reset_peak_stats(0);
  stats = device.allocator.stats(0);
  CHECK(stats.allocated_bytes.peak == int64_t(5 * MiB));
  CHECK(stats.reserved_bytes.peak == int64_t(22 * MiB));
  CHECK(stats.allocations.peak == 1);
  CHECK(stats.raw_mallocs == 2);  // counters are not peaks; they stay

  device.allocator.record_stream(b, s2);
  device.allocator.free(b);
  stats = device.allocator.stats(0);
  CHECK(stats.allocated_bytes.current == 0);
  CHECK(stats.requested_bytes.current == 0);
  CHECK(stats.active_bytes.current == int64_t(5 * MiB));  // pending: freed but maybe in use

  device.backend.finish_stream(0, s2);
  device.allocator.allocate(0, 512, s1);
  stats = device.allocator.stats(0);
  CHECK(stats.active_bytes.current == 512);
  CHECK(stats.active_bytes.peak == int64_t(5 * MiB));
  device.allocator.empty_cache();
  stats = device.allocator.stats(0);
  CHECK(stats.reserved_bytes.current == int64_t(2 * MiB));
  CHECK(stats.segments.current == 1);
  CHECK(stats.raw_frees == 1);
}

TEST_CASE("snapshot lists segments and blocks; to_json writes them as valid JSON") {
  Device device(256 * MiB);
  CHECK(device.allocator.snapshot().to_json() == "{\"segments\": []}\n");
  CHECK_NOTHROW(test_json::parse(device.allocator.snapshot().to_json()));
  // The reader is strict, so parsing is a real validity check.
  for (const char* broken : {"{\"a\": 1,}", "[1 2]", "{\"a\" 1}", "01", "{\"a\": \"x}", "[1]]"}) {
    CAPTURE(broken);
    CHECK_THROWS_AS(test_json::parse(broken), std::runtime_error);
  }

  void* a = device.allocator.allocate(0, 1000, s1);
  void* pending = device.allocator.allocate(0, 2048, s1);
  device.allocator.record_stream(pending, s2);
  device.allocator.free(pending);
  void* large = device.allocator.allocate(0, 5 * MiB, 7);

  const std::string json = device.allocator.snapshot().to_json();
  INFO(json);
  const test_json::Value root = test_json::parse(json);
  const test_json::Value& segments = root["segments"];
  REQUIRE(segments.items.size() == 2);
  const test_json::Value& small = segments[0];
  CHECK(small["device"].as_uint() == 0);
  CHECK(small["address"].as_uint() == reinterpret_cast<uintptr_t>(a));
  CHECK(small["size"].as_uint() == 2 * MiB);
  CHECK(small["stream"].as_uint() == s1);
  CHECK(small["pool"].text == "small");
  CHECK(small["allocated_bytes"].as_uint() == 1024);
  CHECK(small["active_bytes"].as_uint() == 1024 + 2048);
  const test_json::Value& blocks = small["blocks"];
  REQUIRE(blocks.items.size() == 3);
  CHECK(blocks[0]["state"].text == "allocated");
  CHECK(blocks[0]["requested_size"].as_uint() == 1000);
  CHECK(blocks[1]["address"].as_uint() == reinterpret_cast<uintptr_t>(pending));
  CHECK(blocks[1]["size"].as_uint() == 2048);
  CHECK(blocks[1]["state"].text == "pending_free");
  CHECK(blocks[2]["state"].text == "free");
  CHECK(blocks[2]["size"].as_uint() == 2 * MiB - 3072);

  const test_json::Value& big = segments[1];
  CHECK(big["address"].as_uint() == reinterpret_cast<uintptr_t>(large));
  CHECK(big["pool"].text == "large");
  CHECK(big["stream"].as_uint() == 7);
  CHECK(big["size"].as_uint() == 20 * MiB);
  CHECK(big["blocks"].items.size() == 2);
}

TEST_CASE("bad pointers, devices and options give a clear tg::Error") {
  Device device(64 * MiB);
  void* p = device.allocator.allocate(0, 4 * KiB, s1);
  auto* wild = reinterpret_cast<void*>(uintptr_t{0x1234});

  std::string message = thrown<tg::Error>([&] { device.allocator.free(wild); });
  CHECK(contains(message, "[CachingAllocator::free] pointer 0x1234 is not a live allocation of this allocator"));
  message = thrown<tg::Error>([&] { device.allocator.free(as_bytes(p) + 512); });
  CHECK(contains(message, "[CachingAllocator::free]"));
  message = thrown<tg::Error>([&] { device.allocator.record_stream(wild, s2); });
  CHECK(contains(message, "[CachingAllocator::record_stream] pointer 0x1234 is not a live allocation"));

  device.allocator.free(p);
  message = thrown<tg::Error>([&] { device.allocator.free(p); });
  CHECK(contains(message, "or was already freed"));
  message = thrown<tg::Error>([&] { device.allocator.record_stream(p, s2); });
  CHECK(contains(message, "[CachingAllocator::record_stream]"));
  CHECK_NOTHROW(device.allocator.free(nullptr));

  message = thrown<tg::IndexError>([&] { device.allocator.allocate(3, 64, s1); });
  CHECK(contains(message, "[CachingAllocator::allocate] device 3 is out of range: the backend has 1 device(s)"));
  CHECK(contains(thrown<tg::IndexError>([&] { device.allocator.stats(-1); }), "[CachingAllocator::stats]"));

  SimulatedBackend backend(MiB);
  message = thrown<tg::ValueError>(
      [&] { CachingAllocator bad(backend, CachingAllocatorOptions{.garbage_collection_threshold = 1.5}); });
  CHECK(contains(message, "garbage_collection_threshold must be in [0, 1] (0 turns it off), got 1.5"));

  // Nothing above changed the allocator's state.
  CHECK(device.allocator.stats(0).allocations.current == 0);
  CHECK(device.backend.free_count(0) == 0);
}

TEST_CASE("each device has its own pools and statistics; free finds the owning device") {
  Device device(64 * MiB, {}, 2);
  void* on0 = device.allocator.allocate(0, 4 * KiB, s1);
  void* on1 = device.allocator.allocate(1, 3 * MiB, s1);
  CHECK(device.allocator.stats(0).allocated_bytes.current == int64_t(4 * KiB));
  CHECK(device.allocator.stats(1).allocated_bytes.current == int64_t(3 * MiB));
  CHECK(device.backend.bytes_in_use(1) == 20 * MiB);

  device.allocator.free(on1);
  CHECK(device.allocator.stats(1).allocated_bytes.current == 0);
  CHECK(device.allocator.stats(0).allocated_bytes.current == int64_t(4 * KiB));
  const MemorySnapshot snapshot = device.allocator.snapshot();
  REQUIRE(snapshot.segments.size() == 2);
  CHECK(snapshot.segments[0].device == 0);
  CHECK(snapshot.segments[1].device == 1);

  device.allocator.free(on0);
  device.allocator.empty_cache();
  CHECK(device.backend.bytes_in_use(0) == 0);
  CHECK(device.backend.bytes_in_use(1) == 0);
}

TEST_CASE("the simulated backend enforces capacity, orders events per stream and reports misuse") {
  SimulatedBackend backend(10 * MiB, 2);
  void* a = backend.raw_malloc(0, 6 * MiB);
  CHECK(a != nullptr);
  CHECK(backend.raw_malloc(0, 5 * MiB) == nullptr);
  CHECK(backend.failed_malloc_count(0) == 1);
  CHECK(backend.raw_malloc(1, 10 * MiB) != nullptr);  // devices are separate
  CHECK(backend.memory_info(0).free_bytes == 4 * MiB);
  CHECK(backend.memory_info(0).total_bytes == 10 * MiB);

  backend.raw_free(0, a);
  CHECK(contains(thrown<tg::Error>([&] { backend.raw_free(0, a); }), "[SimulatedBackend::raw_free] double free"));
  CHECK(contains(thrown<tg::Error>([&] { backend.raw_free(0, as_bytes(a) + 1); }), "unknown pointer"));
  CHECK(backend.free_count(0) == 1);

  const Event first = backend.record_event(0, s1);
  const Event second = backend.record_event(0, s1);
  const Event other = backend.record_event(0, s2);
  CHECK_FALSE(backend.event_done(first));
  backend.finish_stream(0, s1);
  CHECK(backend.event_done(first));
  CHECK(backend.event_done(second));
  CHECK_FALSE(backend.event_done(other));
  const Event third = backend.record_event(0, s1);  // recorded after the stream caught up
  CHECK_FALSE(backend.event_done(third));
  backend.synchronize_event(other);
  CHECK(backend.event_done(other));
  CHECK(backend.live_event_count() == 4);
  for (Event e : {first, second, other, third}) backend.release_event(e);
  CHECK(backend.live_event_count() == 0);
  CHECK(contains(thrown<tg::Error>([&] { backend.event_done(first); }), "was never recorded or was already released"));
  CHECK(contains(thrown<tg::IndexError>([&] { backend.raw_malloc(2, 1); }), "no device 2"));
}
