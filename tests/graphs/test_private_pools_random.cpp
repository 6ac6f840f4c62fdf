// 10^5 random operations on the caching allocator with private pools (allocate, free, route a
// pool to a stream and back, checkpoint, restore, empty_cache), checked against a reference
// model after every operation (statistics) and every 64 operations (the whole block map).
#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "alloc/caching_allocator.h"
#include "alloc/size_classes.h"
#include "alloc_test_helpers.h"
#include "core/error.h"

using namespace tg::alloc;
using namespace alloc_test;

namespace {

struct Live {
  size_t requested;
  uint64_t pool;  // 0: the default pools
};

struct Model {
  std::map<void*, Live> live;
  std::map<uint64_t, std::vector<std::pair<void*, size_t>>> checkpoint_live;  // per pool

  int64_t requested() const {
    int64_t total = 0;
    for (const auto& [ptr, l] : live) total += static_cast<int64_t>(l.requested);
    return total;
  }
};

void check_stats(const CachingAllocator& a, const Model& model) {
  const AllocatorStats stats = a.stats(0);
  REQUIRE(stats.allocations.current == static_cast<int64_t>(model.live.size()));
  REQUIRE(stats.requested_bytes.current == model.requested());
  REQUIRE(stats.allocated_bytes.current <= stats.reserved_bytes.current);
}

void check_block_map(const CachingAllocator& a, const SimulatedBackend& backend, const Model& model,
                     const std::vector<MempoolId>& pools) {
  const MemorySnapshot snapshot = a.snapshot();
  size_t reserved = 0, allocated = 0, allocated_blocks = 0;
  std::map<uint64_t, size_t> pool_bytes;
  for (const SegmentSnapshot& segment : snapshot.segments) {
    reserved += segment.size;
    pool_bytes[segment.private_pool] += segment.size;
    uintptr_t next = segment.address;
    for (const BlockSnapshot& block : segment.blocks) {
      REQUIRE(block.address == next);  // blocks tile the segment
      next += block.size;
      if (block.state != BlockState::allocated) continue;
      ++allocated_blocks;
      allocated += block.size;
      auto it = model.live.find(reinterpret_cast<void*>(block.address));
      REQUIRE(it != model.live.end());  // every allocated block is one the model holds
      REQUIRE(it->second.pool == segment.private_pool);
      REQUIRE(block.requested_size == it->second.requested);
      REQUIRE(block.size >= round_size(it->second.requested));
    }
    REQUIRE(next == segment.address + segment.size);
  }
  REQUIRE(allocated_blocks == model.live.size());
  REQUIRE(static_cast<size_t>(a.stats(0).allocated_bytes.current) == allocated);
  REQUIRE(static_cast<size_t>(a.stats(0).reserved_bytes.current) == reserved);
  REQUIRE(backend.bytes_in_use(0) == reserved);
  for (MempoolId pool : pools) REQUIRE(a.pool_reserved_bytes(0, pool) == pool_bytes[pool.id]);
}

size_t random_size(std::mt19937_64& rng) {
  const int kind = static_cast<int>(rng() % 10);
  if (kind < 7) return 1 + rng() % (64 * KiB);
  if (kind < 9) return 1 + rng() % (2 * MiB);
  return MiB + rng() % (24 * MiB);
}

}  // namespace

TEST_CASE("private pools: 10^5 random operations agree with a reference model") {
  for (uint64_t seed : {1u, 2u}) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    CachingAllocatorOptions options;
    options.max_split_size = seed == 2 ? 16 * MiB : SIZE_MAX;
    Device device(768 * MiB, options);
    CachingAllocator& a = device.allocator;
    std::vector<MempoolId> pools = {a.create_pool(0), a.create_pool(0), a.create_pool(0)};
    std::map<StreamId, uint64_t> routes;  // stream -> pool id
    std::map<uint64_t, PoolState> checkpoints;
    Model model;
    int ooms = 0, restores = 0;
    const int kOps = 50000;
    for (int op = 0; op < kOps; ++op) {
      const int action = static_cast<int>(rng() % 100);
      const StreamId stream = 1 + rng() % 3;
      if (action < 50) {
        const size_t nbytes = random_size(rng);
        auto route = routes.find(stream);
        try {
          void* ptr = a.allocate(0, nbytes, stream);
          REQUIRE_FALSE(model.live.contains(ptr));
          model.live[ptr] = {nbytes, route == routes.end() ? 0 : route->second};
        } catch (const tg::OutOfMemoryError&) {
          ++ooms;
        }
      } else if (action < 90) {
        if (model.live.empty()) continue;
        auto it = model.live.begin();
        std::advance(it, static_cast<long>(rng() % model.live.size()));
        a.free(it->first);
        model.live.erase(it);
      } else if (action < 94) {
        const MempoolId pool = pools[rng() % pools.size()];
        if (routes.contains(stream)) {
          a.end_allocate_to_pool(0, stream);
          routes.erase(stream);
        } else {
          a.begin_allocate_to_pool(0, pool, stream);
          routes[stream] = pool.id;
        }
      } else if (action < 97) {
        const MempoolId pool = pools[rng() % pools.size()];
        checkpoints[pool.id] = a.checkpoint_pool(0, pool);
        auto& saved = model.checkpoint_live[pool.id];
        saved.clear();
        for (const auto& [ptr, l] : model.live) {
          if (l.pool == pool.id) saved.emplace_back(ptr, l.requested);
        }
      } else if (action < 99) {
        const MempoolId pool = pools[rng() % pools.size()];
        auto checkpoint = checkpoints.find(pool.id);
        if (checkpoint == checkpoints.end()) continue;
        const PoolRestoreResult result = a.restore_pool(checkpoint->second);
        ++restores;
        std::set<void*> before, after;
        for (auto it = model.live.begin(); it != model.live.end();) {
          if (it->second.pool == pool.id) {
            before.insert(it->first);
            it = model.live.erase(it);
          } else {
            ++it;
          }
        }
        for (const auto& [ptr, requested] : model.checkpoint_live[pool.id]) {
          model.live[ptr] = {requested, pool.id};
          after.insert(ptr);
        }
        for (void* ptr : result.freed) REQUIRE((before.contains(ptr) && !after.contains(ptr)));
        for (void* ptr : result.allocated) REQUIRE((after.contains(ptr) && !before.contains(ptr)));
        size_t changed = 0;
        for (void* ptr : before) changed += after.contains(ptr) ? 0 : 1;
        REQUIRE(result.freed.size() == changed);
      } else {
        a.empty_cache();
      }
      check_stats(a, model);
      if (op % 64 == 0) check_block_map(a, device.backend, model, pools);
    }
    check_block_map(a, device.backend, model, pools);
    CHECK(ooms > 0);  // the phases reached a full device
    CHECK(restores > 0);
    for (const auto& [ptr, l] : model.live) a.free(ptr);
    for (const auto& [stream, pool] : routes) a.end_allocate_to_pool(0, stream);
    for (MempoolId pool : pools) a.release_pool(0, pool);
    a.empty_cache();
    CHECK(device.backend.live_allocations(0).empty());
  }
}
