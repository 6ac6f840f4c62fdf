// Tests of tensorgen's thread pool (kernels/cpu/thread_pool.h, Note [A pool that does not wait
// for sleepers]) and of parallel_for on it: every index runs once, ranges do not depend on who
// runs them, nested and concurrent calls run inline, two threads really run at once, and a
// caller finishes alone when no pool thread helps (after fork()).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <doctest/doctest.h>
#include <tensorgen/tensorgen.h>

#include "cpu/parallel.h"
#include "cpu/thread_pool.h"
#include "thread_count.h"

namespace {

struct Counts {
  std::vector<std::atomic<int>> runs;
  explicit Counts(int64_t n) : runs(static_cast<size_t>(n)) {}
};

void count_index(const void* context, int64_t index) {
  static_cast<Counts*>(const_cast<void*>(context))->runs[static_cast<size_t>(index)].fetch_add(1);
}

// Each of the job's two tasks waits (up to `patience`) until the other one has started: both
// see each other only when two threads run them at the same time.
struct Rendezvous {
  std::atomic<int> started{0};
  std::atomic<int> met{0};
  std::chrono::seconds patience{20};
};

void meet(const void* context, int64_t) {
  auto& r = *static_cast<Rendezvous*>(const_cast<void*>(context));
  r.started.fetch_add(1);
  const auto until = std::chrono::steady_clock::now() + r.patience;
  while (r.started.load() < 2 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  if (r.started.load() == 2) r.met.fetch_add(1);
}

// Each task runs a parallel_for: they must run on the task's own thread, inline.
void nested(const void* context, int64_t index) {
  auto& inline_ranges = *static_cast<std::vector<int>*>(const_cast<void*>(context));
  int ranges = 0;
  const std::thread::id outer = std::this_thread::get_id();
  bool same_thread = true;
  tg::cpu::parallel_for(1 << 20, 1, [&](int64_t, int64_t) {
    ++ranges;
    same_thread = same_thread && std::this_thread::get_id() == outer;
  });
  // A job started from inside a task runs there too, in order.
  std::vector<int64_t> order;
  tg::cpu::run_tasks(3, 2, [](const void* c, int64_t i) {
    static_cast<std::vector<int64_t>*>(const_cast<void*>(c))->push_back(i);
  }, &order);
  same_thread = same_thread && order == std::vector<int64_t>{0, 1, 2};
  inline_ranges[static_cast<size_t>(index)] = same_thread && tg::cpu::in_parallel_region() ? ranges : -1;
}

}  // namespace

TEST_CASE("thread pool: every index of a job runs exactly once, for any size and thread count") {
  for (int threads : {1, 2, 3, 8}) {
    for (int64_t tasks : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{7}, int64_t{64}, int64_t{1000}}) {
      CAPTURE(threads);
      CAPTURE(tasks);
      for (int repeat = 0; repeat < 20; ++repeat) {
        Counts counts(tasks);
        tg::cpu::run_tasks(tasks, threads, count_index, &counts);
        int64_t wrong = 0;
        for (auto& c : counts.runs) wrong += c.load() != 1;
        CHECK(wrong == 0);
      }
    }
  }
  CHECK_FALSE(tg::cpu::in_parallel_region());
}

TEST_CASE("thread pool: parallel_for covers [0, n) once, in one fixed range per thread") {
  ThreadCount count(3);
  const int64_t n = 100003;
  std::vector<std::atomic<int>> hits(n);
  std::vector<std::pair<int64_t, int64_t>> ranges;
  std::mutex ranges_mutex;
  tg::cpu::parallel_for(n, 1000, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
    std::lock_guard<std::mutex> lock(ranges_mutex);
    ranges.emplace_back(begin, end);
  });
  int64_t wrong = 0;
  for (auto& h : hits) wrong += h.load() != 1;
  CHECK(wrong == 0);
  std::sort(ranges.begin(), ranges.end());
  // ceil(100003 / 3) = 33335: the ranges of three threads, whoever ran them.
  CHECK(ranges == std::vector<std::pair<int64_t, int64_t>>{{0, 33335}, {33335, 66670}, {66670, 100003}});
  // At or below the grain, one range on the calling thread.
  int calls = 0;
  tg::cpu::parallel_for(1000, 1000, [&](int64_t begin, int64_t end) {
    ++calls;
    CHECK(begin == 0);
    CHECK(end == 1000);
  });
  CHECK(calls == 1);
}

TEST_CASE("thread pool: two threads run a job's tasks at the same time") {
  Rendezvous r;
  tg::cpu::run_tasks(2, 2, meet, &r);
  CHECK(r.started.load() == 2);
  CHECK(r.met.load() == 2);
  CHECK(tg::cpu::pool_threads() >= 1);
}

TEST_CASE("thread pool: a parallel_for or a job inside a task runs inline, on the task's thread") {
  ThreadCount count(2);
  std::vector<int> inline_ranges(4, 0);
  tg::cpu::run_tasks(4, 2, nested, &inline_ranges);
  CHECK(inline_ranges == std::vector<int>{1, 1, 1, 1});
}

TEST_CASE("thread pool: jobs from several threads at once all complete, each index once") {
  std::vector<std::thread> callers;
  std::atomic<int64_t> wrong{0};
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&wrong] {
      for (int job = 0; job < 300; ++job) {
        Counts counts(5);
        tg::cpu::run_tasks(5, 2, count_index, &counts);
        for (auto& c : counts.runs) wrong += c.load() != 1;
      }
    });
  }
  for (std::thread& c : callers) c.join();
  CHECK(wrong.load() == 0);
}

TEST_CASE("thread pool: without its threads (a child after fork) the caller runs every index alone") {
  // The pool's threads exist in the parent; the child inherits the pool but not its threads.
  Rendezvous warm;
  tg::cpu::run_tasks(2, 2, meet, &warm);
  REQUIRE(tg::cpu::pool_threads() >= 1);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    Counts counts(64);
    tg::cpu::run_tasks(64, 2, count_index, &counts);
    int wrong = 0;
    for (auto& c : counts.runs) wrong += c.load() != 1;
    _exit(wrong == 0 ? 0 : 1);
  }
  int status = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  pid_t done = 0;
  while ((done = waitpid(child, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (done == 0) kill(child, SIGKILL), waitpid(child, &status, 0);
  CHECK(done == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
