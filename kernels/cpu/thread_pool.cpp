#include "cpu/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <system_error>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tg::cpu {

// Note [A pool that does not wait for sleepers]
// tensorgen's loops ran on OpenMP (libgomp) teams. A team splits a loop into one range per
// thread and the caller waits for every range, so a region lasts as long as its slowest
// thread takes to be scheduled, and between regions libgomp's threads spin for a while before
// they sleep. On a machine with more runnable threads than cores (2 vCPUs with a build
// running, or several tensorgen processes) both hurt: a transformer block took 25-90 ms with
// two threads against 6-8 ms with one (docs/performance.md, session 12).
// This pool keeps what is cheap on a quiet machine and drops what is costly on a busy one:
// - A job is a count of indices. The caller publishes it, then claims indices itself, one at
//   a time from a shared counter, as do the pool threads that wake up in time. The caller waits
//   only for indices another thread has claimed and is running, never for a thread that has not
//   started: with every pool thread descheduled, the caller runs the whole job alone, as fast
//   as one thread. Results do not depend on who runs what: the indices, and so the ranges of
//   parallel_for, are fixed by the job's size and thread count.
// - Idle pool threads spin for kSpin (short: it is the other jobs' time they spend), then
//   sleep on a futex (std::atomic::wait); the caller calls notify only when one sleeps.
// - Everything a pool thread reads of a job lives in the pool, and an index is claimed by a
//   compare-and-swap of one word holding the job's generation, its size and the next index, so
//   a thread that wakes late, after its job ended, can claim nothing of it or of a later job
//   it has not seen. A claimed index holds its job open (done < size), so the job's task and
//   context are still the caller's when the claiming thread reads them.
// - One job at a time: a second thread that calls while a job runs runs its own job inline,
//   as does a call from inside a task (OpenMP runs a nested region on one thread too).
// - The pool is never destroyed (its threads sleep until the process ends), so kernels that
//   run during static destruction still find it. In a child process after fork() the pool
//   threads do not exist; the caller then runs every job alone, which needs nothing from them.

namespace {

thread_local bool running_task = false;

constexpr auto kSpin = std::chrono::microseconds(50);
constexpr int64_t kMaxTasks = 0xffff;  // the size and the next index share a claim word

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// generation (32 bits) | limit (16 bits) | count so far (16 bits): the claim word (limit =
// the job's size, count = the next index) and the join word (limit = pool threads that may
// help, count = those that did).
constexpr uint64_t pack(uint32_t generation, int64_t limit, int64_t count) {
  return uint64_t{generation} << 32 | static_cast<uint64_t>(limit) << 16 | static_cast<uint64_t>(count);
}
constexpr uint32_t generation_of(uint64_t word) { return static_cast<uint32_t>(word >> 32); }
constexpr int64_t limit_of(uint64_t word) { return static_cast<int64_t>((word >> 16) & 0xffff); }
constexpr int64_t count_of(uint64_t word) { return static_cast<int64_t>(word & 0xffff); }

// Adds one to `word`'s count if it still belongs to `generation` and is below its limit;
// returns the count before, or -1.
int64_t take_one(std::atomic<uint64_t>& word, uint32_t generation) {
  uint64_t seen = word.load(std::memory_order_acquire);
  for (;;) {
    if (generation_of(seen) != generation || count_of(seen) >= limit_of(seen)) return -1;
    if (word.compare_exchange_weak(seen, seen + 1, std::memory_order_acq_rel, std::memory_order_acquire)) {
      return count_of(seen);
    }
  }
}

void run_inline(int64_t tasks, PoolTask task, const void* context) {
  const bool outer = running_task;
  running_task = true;
  for (int64_t i = 0; i < tasks; ++i) task(context, i);
  running_task = outer;
}

class Pool {
 public:
  void run(int64_t tasks, int threads, PoolTask task, const void* context) {
    // running_task first: a task's thread may be the one holding submit_ (try_lock would be
    // undefined behaviour there).
    if (running_task || threads <= 1 || tasks <= 1 || tasks > kMaxTasks) {
      run_inline(tasks, task, context);
      return;
    }
    std::unique_lock<std::mutex> lock(submit_, std::try_to_lock);
    if (!lock.owns_lock()) {
      run_inline(tasks, task, context);
      return;
    }
    const int64_t helpers = std::min<int64_t>(threads, tasks) - 1;
    start_threads(helpers);
    const uint32_t generation = generation_.load(std::memory_order_relaxed) + 1;
    task_.store(task, std::memory_order_relaxed);
    context_.store(context, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    join_.store(pack(generation, helpers, 0), std::memory_order_release);
    claim_.store(pack(generation, tasks, 0), std::memory_order_release);
    generation_.store(generation, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) generation_.notify_all();

    running_task = true;
    run_claimed(generation);
    running_task = false;
    // What is left was claimed by pool threads that are running it.
    for (int spins = 0; done_.load(std::memory_order_acquire) < tasks; ++spins) {
      if (spins < 4096) {
        cpu_relax();
      } else {
        std::this_thread::yield();
      }
    }
  }

  int size() const { return started_.load(std::memory_order_relaxed); }

 private:
  void run_claimed(uint32_t generation) {
    for (int64_t index; (index = take_one(claim_, generation)) >= 0;) {
      task_.load(std::memory_order_relaxed)(context_.load(std::memory_order_relaxed), index);
      done_.fetch_add(1, std::memory_order_release);
    }
  }

  // Called with submit_ held.
  void start_threads(int64_t wanted) {
    while (started_.load(std::memory_order_relaxed) < wanted) {
      try {
        std::thread([this] { serve(); }).detach();
      } catch (const std::system_error&) {
        return;  // fewer helpers: the caller runs what they would have
      }
      started_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  void serve() {
    running_task = true;  // everything a pool thread runs is a task
    uint32_t seen = generation_.load(std::memory_order_acquire);
    for (;;) {
      seen = next_generation(seen);
      if (take_one(join_, seen) >= 0) run_claimed(seen);
    }
  }

  uint32_t next_generation(uint32_t seen) {
    const auto until = std::chrono::steady_clock::now() + kSpin;
    for (int i = 1;; ++i) {
      const uint32_t now = generation_.load(std::memory_order_acquire);
      if (now != seen) return now;
      if (i % 64 == 0 && std::chrono::steady_clock::now() > until) break;
      cpu_relax();
    }
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    generation_.wait(seen, std::memory_order_seq_cst);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
    return generation_.load(std::memory_order_acquire);
  }

  std::mutex submit_;
  std::atomic<PoolTask> task_{nullptr};
  std::atomic<const void*> context_{nullptr};
  std::atomic<uint64_t> claim_{0};
  std::atomic<uint64_t> join_{0};
  std::atomic<int64_t> done_{0};
  std::atomic<uint32_t> generation_{0};  // the word sleeping threads wait on
  std::atomic<int> sleepers_{0};
  std::atomic<int> started_{0};
};

Pool& pool() {
  static Pool* const instance = new Pool;  // never destroyed: see the Note
  return *instance;
}

}  // namespace

void run_tasks(int64_t tasks, int threads, PoolTask task, const void* context) {
  if (tasks <= 0) return;
  pool().run(tasks, threads, task, context);
}

bool in_parallel_region() { return running_task; }

int pool_threads() { return pool().size(); }

}  // namespace tg::cpu
