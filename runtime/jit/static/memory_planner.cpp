#include "jit/static/memory_planner.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <limits>
#include <numeric>
#include <sstream>

#include "core/error.h"

namespace tg::jit {

// Note [Offset assignment strategies]
// Both strategies place buffers one at a time with the same rule (best fit): among the
// buffers already placed whose lifetimes meet the new one's, walk them in offset order and
// take the smallest gap that holds the new buffer; when none does, put it above the highest
// of them. They differ only in the order buffers are placed. Greedy by size places the
// largest first, so small buffers fill the holes large ones leave. Greedy by breadth places
// first the buffers of the node where the most bytes are live (the node that sets the lower
// bound), so that the tightest moment of the program is packed before anything else can
// fragment it. Neither is best on every graph, so plan_memory runs both and keeps the
// smaller arena, as the paper suggests. Placement looks only at the buffers that meet the
// new one in time (LifetimeIndex), so a plan costs O(n log n + sum of k log k) for k such
// neighbours per buffer: milliseconds for 10^4 buffers (bench_graph reports it).

std::string_view to_string(PlanStrategy strategy) {
  switch (strategy) {
    case PlanStrategy::GreedyBySize:
      return "greedy_by_size";
    case PlanStrategy::GreedyByBreadth:
      return "greedy_by_breadth";
  }
  return "unknown";
}

int64_t align_up(int64_t bytes, int64_t alignment) { return (bytes + alignment - 1) / alignment * alignment; }

void check_lifetimes(const std::vector<BufferLifetime>& buffers) {
  for (size_t i = 0; i < buffers.size(); ++i) {
    const BufferLifetime& b = buffers[i];
    TG_CHECK_VALUE(b.size >= 0, "[plan_memory] buffer ", i, " has negative size ", b.size);
    TG_CHECK_VALUE(b.first_use <= b.last_use, "[plan_memory] buffer ", i, " ends (last_use ", b.last_use,
                   ") before it starts (first_use ", b.first_use, ")");
  }
}

int64_t peak_live_bytes(const std::vector<BufferLifetime>& buffers, int64_t alignment) {
  // Sweep: +size at first_use, -size just after last_use; at equal times frees come first.
  std::vector<std::pair<int64_t, int64_t>> events;
  events.reserve(buffers.size() * 2);
  for (const BufferLifetime& b : buffers) {
    const int64_t size = align_up(b.size, alignment);
    events.emplace_back(b.first_use, size);
    events.emplace_back(b.last_use + 1, -size);
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0, peak = 0;
  for (const auto& [time, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

int64_t naive_total_bytes(const std::vector<BufferLifetime>& buffers, int64_t alignment) {
  int64_t total = 0;
  for (const BufferLifetime& b : buffers) total += align_up(b.size, alignment);
  return total;
}

namespace {

// The buffers whose lifetimes meet a query interval, from a static max-segment tree over
// the buffers sorted by first_use: a subtree is entered only when some buffer in it starts
// no later than the query ends and ends no earlier than it starts, so a query costs
// O((k + 1) log n) for k buffers that meet it.
class LifetimeIndex {
 public:
  explicit LifetimeIndex(const std::vector<BufferLifetime>& buffers) : buffers_(buffers) {
    by_first_.resize(buffers.size());
    std::iota(by_first_.begin(), by_first_.end(), size_t{0});
    std::sort(by_first_.begin(), by_first_.end(),
              [&](size_t a, size_t b) { return buffers[a].first_use < buffers[b].first_use; });
    size_ = 1;
    while (size_ < by_first_.size()) size_ *= 2;
    max_last_.assign(2 * size_, std::numeric_limits<int64_t>::min());
    for (size_t i = 0; i < by_first_.size(); ++i) max_last_[size_ + i] = buffers[by_first_[i]].last_use;
    for (size_t i = size_; i-- > 1;) max_last_[i] = std::max(max_last_[2 * i], max_last_[2 * i + 1]);
  }

  // Appends to `out` every buffer (the queried one included) whose lifetime meets [first, last].
  void meeting(int64_t first, int64_t last, std::vector<size_t>& out) const {
    const size_t end = static_cast<size_t>(
        std::upper_bound(by_first_.begin(), by_first_.end(), last,
                         [&](int64_t value, size_t i) { return value < buffers_[i].first_use; }) -
        by_first_.begin());
    if (end > 0) collect(1, 0, size_, end, first, out);
  }

 private:
  void collect(size_t node, size_t lo, size_t hi, size_t end, int64_t first, std::vector<size_t>& out) const {
    if (lo >= end || max_last_[node] < first) return;
    if (hi - lo == 1) {
      out.push_back(by_first_[lo]);
      return;
    }
    const size_t mid = (lo + hi) / 2;
    collect(2 * node, lo, mid, end, first, out);
    collect(2 * node + 1, mid, hi, end, first, out);
  }

  const std::vector<BufferLifetime>& buffers_;
  std::vector<size_t> by_first_;
  size_t size_ = 1;
  std::vector<int64_t> max_last_;
};

// Places buffers in `order` by the best-fit rule of Note [Offset assignment strategies].
MemoryPlan place_in_order(const std::vector<BufferLifetime>& buffers, const std::vector<size_t>& order,
                          int64_t alignment, PlanStrategy strategy) {
  MemoryPlan plan;
  plan.strategy = strategy;
  plan.offsets.assign(buffers.size(), -1);  // -1: not placed yet
  const LifetimeIndex index(buffers);
  std::vector<size_t> meeting;
  std::vector<std::pair<int64_t, int64_t>> ranges;  // [offset, end) of placed buffers met
  for (size_t i : order) {
    const int64_t size = align_up(buffers[i].size, alignment);
    meeting.clear();
    ranges.clear();
    index.meeting(buffers[i].first_use, buffers[i].last_use, meeting);
    for (size_t other : meeting) {
      if (plan.offsets[other] >= 0) {
        ranges.emplace_back(plan.offsets[other], plan.offsets[other] + align_up(buffers[other].size, alignment));
      }
    }
    std::sort(ranges.begin(), ranges.end());
    int64_t prev_end = 0;
    int64_t best_offset = -1;
    int64_t best_gap = std::numeric_limits<int64_t>::max();
    for (const auto& [offset, end] : ranges) {
      if (offset >= prev_end) {
        const int64_t gap = offset - prev_end;
        if (gap >= size && gap < best_gap) {
          best_gap = gap;
          best_offset = prev_end;
        }
      }
      prev_end = std::max(prev_end, end);
    }
    const int64_t offset = best_offset >= 0 ? best_offset : prev_end;
    plan.offsets[i] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + size);
  }
  return plan;
}

}  // namespace

MemoryPlan plan_greedy_by_size(const std::vector<BufferLifetime>& buffers, int64_t alignment) {
  check_lifetimes(buffers);
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return buffers[a].size > buffers[b].size; });
  return place_in_order(buffers, order, alignment, PlanStrategy::GreedyBySize);
}

MemoryPlan plan_greedy_by_breadth(const std::vector<BufferLifetime>& buffers, int64_t alignment) {
  check_lifetimes(buffers);
  // The live bytes only rise where a buffer starts, so the breadth at the start times is
  // enough: a buffer's first node in breadth order is the start time in its lifetime with
  // the largest breadth (earliest on ties). A sparse table answers those range maxima.
  std::vector<int64_t> starts;
  for (const BufferLifetime& b : buffers) starts.push_back(b.first_use);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  const size_t n = starts.size();
  std::vector<int64_t> delta(n + 1, 0);
  for (const BufferLifetime& b : buffers) {
    const int64_t size = align_up(b.size, alignment);
    const size_t from = std::lower_bound(starts.begin(), starts.end(), b.first_use) - starts.begin();
    const size_t to = std::upper_bound(starts.begin(), starts.end(), b.last_use) - starts.begin();
    delta[from] += size;
    delta[to] -= size;
  }
  std::vector<int64_t> breadth(n);
  int64_t live = 0;
  for (size_t i = 0; i < n; ++i) breadth[i] = live += delta[i];
  // table[k][i]: index of the widest start in [i, i + 2^k).
  std::vector<std::vector<size_t>> table(1, std::vector<size_t>(n));
  std::iota(table[0].begin(), table[0].end(), size_t{0});
  auto wider = [&](size_t a, size_t b) { return breadth[b] > breadth[a] ? b : a; };
  for (size_t k = 1; (size_t{1} << k) <= n; ++k) {
    const std::vector<size_t>& prev = table[k - 1];
    std::vector<size_t> next(n - (size_t{1} << k) + 1);
    for (size_t i = 0; i < next.size(); ++i) next[i] = wider(prev[i], prev[i + (size_t{1} << (k - 1))]);
    table.push_back(std::move(next));
  }
  std::vector<size_t> widest(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    const size_t lo = std::lower_bound(starts.begin(), starts.end(), buffers[i].first_use) - starts.begin();
    const size_t hi = std::upper_bound(starts.begin(), starts.end(), buffers[i].last_use) - starts.begin();
    const size_t k = static_cast<size_t>(std::bit_width(hi - lo) - 1);
    widest[i] = wider(table[k][lo], table[k][hi - (size_t{1} << k)]);
  }
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (breadth[widest[a]] != breadth[widest[b]]) return breadth[widest[a]] > breadth[widest[b]];
    if (widest[a] != widest[b]) return widest[a] < widest[b];
    return buffers[a].size > buffers[b].size;
  });
  return place_in_order(buffers, order, alignment, PlanStrategy::GreedyByBreadth);
}

PlanReport plan_memory(const std::vector<BufferLifetime>& buffers, int64_t alignment) {
  const auto start = std::chrono::steady_clock::now();
  PlanReport report;
  report.candidates.push_back(plan_greedy_by_size(buffers, alignment));
  report.candidates.push_back(plan_greedy_by_breadth(buffers, alignment));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  report.planning_ms = std::chrono::duration<double, std::milli>(elapsed).count();
  report.plan = report.candidates[0];
  for (const MemoryPlan& candidate : report.candidates) {
    if (candidate.arena_bytes < report.plan.arena_bytes) report.plan = candidate;
  }
  report.lower_bound = peak_live_bytes(buffers, alignment);
  report.naive_total = naive_total_bytes(buffers, alignment);
  return report;
}

std::optional<std::string> find_plan_conflict(const std::vector<BufferLifetime>& buffers, const MemoryPlan& plan,
                                              int64_t alignment) {
  std::ostringstream out;
  if (plan.offsets.size() != buffers.size()) {
    out << "plan has " << plan.offsets.size() << " offsets for " << buffers.size() << " buffers";
    return out.str();
  }
  int64_t top = 0;
  std::vector<size_t> by_start(buffers.size());
  std::iota(by_start.begin(), by_start.end(), size_t{0});
  std::sort(by_start.begin(), by_start.end(),
            [&](size_t a, size_t b) { return buffers[a].first_use < buffers[b].first_use; });
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (plan.offsets[i] < 0 || plan.offsets[i] % alignment != 0) {
      out << "buffer " << i << " has offset " << plan.offsets[i] << ", not a non-negative multiple of " << alignment;
      return out.str();
    }
    top = std::max(top, plan.offsets[i] + align_up(buffers[i].size, alignment));
  }
  if (top != plan.arena_bytes) {
    out << "arena_bytes is " << plan.arena_bytes << " but the buffers reach " << top;
    return out.str();
  }
  // Pairs meet only when one starts inside the other: compare each buffer with those that
  // start no later than it ends.
  for (size_t x = 0; x < by_start.size(); ++x) {
    const size_t i = by_start[x];
    for (size_t y = x + 1; y < by_start.size() && buffers[by_start[y]].first_use <= buffers[i].last_use; ++y) {
      const size_t j = by_start[y];
      const int64_t end_i = plan.offsets[i] + buffers[i].size, end_j = plan.offsets[j] + buffers[j].size;
      if (buffers[i].size > 0 && buffers[j].size > 0 && plan.offsets[i] < end_j && plan.offsets[j] < end_i) {
        out << "buffers " << i << " and " << j << " are live together and overlap in the arena: [" << plan.offsets[i]
            << ", " << end_i << ") and [" << plan.offsets[j] << ", " << end_j << ")";
        return out.str();
      }
    }
  }
  return std::nullopt;
}

}  // namespace tg::jit
