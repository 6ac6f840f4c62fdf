// The memory planner as pure functions: the paper's worked example, chains, diamonds, and
// randomized lifetimes checked against the plan invariant and the lower bound.
#include <doctest/doctest.h>

#include <random>

#include "core/error.h"
#include "jit/static/memory_planner.h"

using tg::jit::BufferLifetime;
using tg::jit::MemoryPlan;
using tg::jit::PlanStrategy;

namespace {

void require_valid(const std::vector<BufferLifetime>& buffers, const MemoryPlan& plan, int64_t alignment) {
  const auto conflict = tg::jit::find_plan_conflict(buffers, plan, alignment);
  INFO(conflict.value_or(""));
  REQUIRE_FALSE(conflict.has_value());
  REQUIRE(plan.arena_bytes >= tg::jit::peak_live_bytes(buffers, alignment));
}

}  // namespace

// The example of the paper's authors' reference implementation (TFLite GPU delegate's
// memory_management tests, "ComplexRecords"): nine tensors whose greedy-by-size offsets are
// published as {0, 32, 80, 64, 88, 0, 64, 72, 0} in a 96-byte arena, which is also the peak
// of live bytes (at node 5: 8 + 16 + 8 + 64).
TEST_CASE("planner: greedy by size reproduces the published worked example") {
  const std::vector<BufferLifetime> buffers = {
      {32, 0, 1}, {32, 1, 4}, {8, 2, 5}, {16, 3, 5}, {8, 4, 5}, {64, 5, 7}, {8, 6, 8}, {8, 7, 8}, {16, 8, 9}};
  const MemoryPlan plan = tg::jit::plan_greedy_by_size(buffers, 1);
  CHECK(plan.offsets == std::vector<int64_t>{0, 32, 80, 64, 88, 0, 64, 72, 0});
  CHECK(plan.arena_bytes == 96);
  CHECK(tg::jit::peak_live_bytes(buffers, 1) == 96);
  CHECK(tg::jit::naive_total_bytes(buffers, 1) == 192);
  require_valid(buffers, plan, 1);
  const auto report = tg::jit::plan_memory(buffers, 1);
  CHECK(report.plan.arena_bytes == 96);
  CHECK(report.candidates.size() == 2);
  require_valid(buffers, tg::jit::plan_greedy_by_breadth(buffers, 1), 1);
}

TEST_CASE("planner: the published chain example with 128-byte alignment") {
  // Same source, "OffsetAssignmentWithAlignment": offsets {0, 128, 0, 128, 0}, 160 bytes
  // there because its arena counts the last buffer's unaligned size; ours rounds every size
  // up, so the arena is 256 and the offsets agree.
  const std::vector<BufferLifetime> buffers = {{16, 0, 1}, {8, 1, 2}, {64, 2, 3}, {32, 3, 4}, {8, 4, 5}};
  const MemoryPlan plan = tg::jit::plan_greedy_by_size(buffers, 128);
  CHECK(plan.offsets == std::vector<int64_t>{0, 128, 0, 128, 0});
  CHECK(plan.arena_bytes == 256);
  require_valid(buffers, plan, 128);
}

TEST_CASE("planner: a long chain needs two buffers' worth, whatever its length") {
  // Node k reads buffer k-1 and writes buffer k: only neighbours are live together.
  std::vector<BufferLifetime> buffers;
  for (int k = 0; k < 1000; ++k) buffers.push_back({64 * (1 + k % 7), k, k + 1});
  const auto report = tg::jit::plan_memory(buffers);
  require_valid(buffers, report.plan, 64);
  CHECK(report.lower_bound == 64 * 13);  // sizes 6 and 7 (in 64-byte units) side by side
  CHECK(report.plan.arena_bytes <= report.lower_bound * 105 / 100);
  CHECK(report.naive_total == naive_total_bytes(buffers, 64));
}

TEST_CASE("planner: a wide diamond keeps every branch live at the join") {
  // Node 0 makes the source; nodes 1..w each make a branch from it; node w+1 joins them all.
  const int w = 50;
  std::vector<BufferLifetime> buffers = {{4096, 0, w}};
  for (int k = 1; k <= w; ++k) buffers.push_back({1024 + 64 * k, k, w + 1});
  buffers.push_back({4096, w + 1, w + 2});
  const auto report = tg::jit::plan_memory(buffers);
  require_valid(buffers, report.plan, 64);
  int64_t branches = 0;
  for (int k = 1; k <= w; ++k) branches += 1024 + 64 * k;
  CHECK(report.lower_bound == branches + 4096);
  CHECK(report.plan.arena_bytes == report.lower_bound);
}

TEST_CASE("planner: 1000 random programs give valid plans no smaller than the lower bound") {
  std::mt19937_64 rng(1234);
  double worst = 1.0;
  for (int trial = 0; trial < 1000; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 60);
    const int span = 1 + static_cast<int>(rng() % 40);
    std::vector<BufferLifetime> buffers;
    for (int i = 0; i < n; ++i) {
      const int64_t first = static_cast<int64_t>(rng() % 80);
      const int64_t size = (rng() % 10 == 0) ? 0 : static_cast<int64_t>(1 + rng() % 100000);
      buffers.push_back({size, first, first + static_cast<int64_t>(rng() % static_cast<uint64_t>(span))});
    }
    const int64_t alignment = (trial % 2) ? 64 : 1;
    CAPTURE(trial);
    const auto report = tg::jit::plan_memory(buffers, alignment);
    for (const MemoryPlan& plan : report.candidates) require_valid(buffers, plan, alignment);
    REQUIRE(report.plan.arena_bytes <= report.naive_total);
    for (const MemoryPlan& plan : report.candidates) REQUIRE(report.plan.arena_bytes <= plan.arena_bytes);
    if (report.lower_bound > 0) {
      worst = std::max(worst, static_cast<double>(report.plan.arena_bytes) / static_cast<double>(report.lower_bound));
    }
  }
  MESSAGE("worst arena / lower bound over 1000 random programs: " << worst);
}

TEST_CASE("planner: the conflict checker catches overlapping live buffers") {
  const std::vector<BufferLifetime> buffers = {{100, 0, 2}, {100, 1, 3}};
  MemoryPlan bad;
  bad.offsets = {0, 64};
  bad.arena_bytes = 164;
  const auto conflict = tg::jit::find_plan_conflict(buffers, bad, 1);
  REQUIRE(conflict.has_value());
  CHECK(conflict->find("overlap") != std::string::npos);
  // Disjoint lifetimes may share bytes.
  const std::vector<BufferLifetime> apart = {{100, 0, 1}, {100, 2, 3}};
  MemoryPlan shared;
  shared.offsets = {0, 0};
  shared.arena_bytes = 100;
  CHECK_FALSE(tg::jit::find_plan_conflict(apart, shared, 1).has_value());
}

TEST_CASE("planner: empty input, zero sizes and bad lifetimes") {
  const auto empty = tg::jit::plan_memory({});
  CHECK(empty.plan.arena_bytes == 0);
  CHECK(empty.lower_bound == 0);
  const std::vector<BufferLifetime> zeros = {{0, 0, 3}, {0, 1, 2}};
  CHECK(tg::jit::plan_memory(zeros).plan.arena_bytes == 0);
  CHECK_THROWS_WITH_AS(tg::jit::plan_memory({{10, 5, 4}}), doctest::Contains("[plan_memory] buffer 0 ends"),
                       tg::ValueError);
  CHECK_THROWS_AS(tg::jit::plan_memory({{-1, 0, 0}}), tg::ValueError);
}

TEST_CASE("planner: plans 10^4 buffers") {
  std::mt19937_64 rng(7);
  std::vector<BufferLifetime> buffers;
  for (int k = 0; k < 10000; ++k) {
    buffers.push_back({static_cast<int64_t>(64 + rng() % 65536), k, k + 1 + static_cast<int64_t>(rng() % 8)});
  }
  const auto report = tg::jit::plan_memory(buffers);
  require_valid(buffers, report.plan, 64);
  MESSAGE("10^4 buffers: arena/lower bound " << static_cast<double>(report.plan.arena_bytes) / report.lower_bound
                                             << ", planned in " << report.planning_ms << " ms");
}
