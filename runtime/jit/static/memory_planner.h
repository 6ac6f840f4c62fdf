// Memory planner: gives every buffer an offset in one arena, as pure functions of a list of
// (size, first_use, last_use) records. Lifetimes are inclusive node indices.
// Invariant of every MemoryPlan p for its records r: for i != j whose lifetimes meet
// (r[i].first_use <= r[j].last_use and r[j].first_use <= r[i].last_use), the byte ranges
// [p.offsets[i], p.offsets[i] + size_i) and [p.offsets[j], ...) are disjoint, every offset is a
// multiple of the alignment, and p.arena_bytes = max(offset + aligned size) (0 when empty).
// See Note [Offset assignment strategies].
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tg::jit {

struct BufferLifetime {
  int64_t size = 0;       // bytes, >= 0
  int64_t first_use = 0;  // index of the node that defines it
  int64_t last_use = 0;   // index of the last node that reads it (>= first_use)
};

enum class PlanStrategy { GreedyBySize, GreedyByBreadth };
std::string_view to_string(PlanStrategy strategy);

struct MemoryPlan {
  PlanStrategy strategy = PlanStrategy::GreedyBySize;
  std::vector<int64_t> offsets;  // one per record, in the records' order
  int64_t arena_bytes = 0;
};

// What a plan is worth, for reports (tg-graph plan, bench_graph).
struct PlanReport {
  MemoryPlan plan;                  // the smaller of the strategies' plans
  std::vector<MemoryPlan> candidates;  // every strategy's plan, the chosen one included
  int64_t lower_bound = 0;          // peak_live_bytes: no plan can be smaller
  int64_t naive_total = 0;          // naive_total_bytes: one buffer each, no reuse
  double planning_ms = 0;           // wall time of all strategies together
};

int64_t align_up(int64_t bytes, int64_t alignment);
// The largest sum of (aligned) sizes live at one node: a lower bound on every arena.
int64_t peak_live_bytes(const std::vector<BufferLifetime>& buffers, int64_t alignment = 64);
// The sum of all (aligned) sizes: what running without reuse costs.
int64_t naive_total_bytes(const std::vector<BufferLifetime>& buffers, int64_t alignment = 64);

// Pisarchyk and Lee 2020 (arXiv 2001.03288), section 5: largest buffer first, each into the
// smallest gap between buffers it meets in time that fits it, else on top of them.
MemoryPlan plan_greedy_by_size(const std::vector<BufferLifetime>& buffers, int64_t alignment = 64);
// The same paper's greedy by breadth: nodes in order of decreasing live bytes; each node's
// unplaced buffers, largest first, placed as above.
MemoryPlan plan_greedy_by_breadth(const std::vector<BufferLifetime>& buffers, int64_t alignment = 64);
// Runs every strategy and keeps the smallest arena (ties go to greedy by size).
PlanReport plan_memory(const std::vector<BufferLifetime>& buffers, int64_t alignment = 64);

// A description of the first violation of the invariant above, or nullopt for a valid plan.
std::optional<std::string> find_plan_conflict(const std::vector<BufferLifetime>& buffers, const MemoryPlan& plan,
                                              int64_t alignment = 64);

// Throws tg::ValueError naming the record when a size is negative or last_use < first_use.
void check_lifetimes(const std::vector<BufferLifetime>& buffers);

}  // namespace tg::jit
