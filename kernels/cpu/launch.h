// Launches: the CPU loops a kernel runs, each kept as one replayable unit (the CPU analogue of
// a kernel launch captured by CUDA stream capture). A launch is a loop body plus its operands'
// base addresses, with everything else it needs (geometry, dtypes, the op and its constants)
// computed once and copied in; run() does exactly what the kernel did, on the same memory.
// Invariant: a launch reads and writes memory only through operands() (and scratch it owns
// for the length of one run). See Note [Launch replay].
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tg::cpu {

// Note [Launch replay]
// A recorded graph (runtime/graphs) replays a captured operator call by its launches only, with
// no dispatch, no meta function, no out= checks and no loop setup, when everything the call did
// was launches. Three things must hold, and anything the recorder cannot prove is refused (the
// call then replays through its kernel, which stays correct):
// - the kernel opted in: it opens a LaunchesOnly, declaring that its whole body is this
//   folder's loop helpers (elementwise_kernel, the vectorized kernels, copy_into, the
//   reductions' reduce_to_output, ...) and allocation, with no other memory access, library
//   call, or decision on tensor values;
// - nothing else ran inside the call: every operator its kernel or wrapper called is itself
//   replayable by launches (a view, or a declared kernel, recursively), and it read no tensor
//   data (runtime/graphs' recorder checks both);
// - every launch is a copy of what ran: launch() records the body and then runs the recorded
//   copy, so capture and replay execute the same code on the same addresses. Results are
//   eager's bits, threading included: a body calls parallel_for itself, as the kernel did.
// Scratch memory a launch reads after its run (a temporary an overlapping input was copied
// to) must outlive the recording: during a graph capture every CPU allocation comes from the
// graph's pool, which does, and replay reuses such blocks in the capture's order.
class Launch {
 public:
  virtual ~Launch() = default;
  virtual void run() const = 0;
  // The base addresses of the operands, in the loop's order (output first). A recorder may
  // move one (an input copied elsewhere, laid out the same) before the first replay.
  virtual std::span<char*> operands() = 0;
};

// Receives the launches of the CPU loops this thread runs while it is installed
// (LaunchRecorderScope). Not thread-safe: one thread records into one recorder.
struct LaunchRecorder {
  std::vector<std::unique_ptr<Launch>> launches;
  bool declared = false;  // a LaunchesOnly kernel ran
  std::string refused;    // why the work cannot be replayed by launches; empty when it can
  void refuse(std::string why) {
    if (refused.empty()) refused = std::move(why);
  }
  bool replayable() const { return declared && refused.empty(); }
};

namespace detail {
// How many recorders are installed on all threads: the loops test it before the thread-local.
extern std::atomic<int> installed_launch_recorders;
LaunchRecorder* this_thread_launch_recorder();
}  // namespace detail

// This thread's recorder, or nullptr. One relaxed load when no thread records.
[[gnu::always_inline]] inline LaunchRecorder* launch_recorder() {
  if (detail::installed_launch_recorders.load(std::memory_order_relaxed) == 0) [[likely]] {
    return nullptr;
  }
  return detail::this_thread_launch_recorder();
}

// Installs `recorder` on this thread until destroyed (restoring the previous one).
class LaunchRecorderScope {
 public:
  explicit LaunchRecorderScope(LaunchRecorder* recorder);
  ~LaunchRecorderScope();
  LaunchRecorderScope(const LaunchRecorderScope&) = delete;
  LaunchRecorderScope& operator=(const LaunchRecorderScope&) = delete;

 private:
  LaunchRecorder* previous_;
};

// Opened first thing in a kernel whose whole body is launches: see Note [Launch replay].
class LaunchesOnly {
 public:
  LaunchesOnly() {
    if (LaunchRecorder* recorder = launch_recorder()) recorder->declared = true;
  }
};

namespace detail {

template <size_t N, typename Body>
class BodyLaunch final : public Launch {
 public:
  BodyLaunch(const std::array<char*, N>& operands, const Body& body) : operands_(operands), body_(body) {}
  void run() const override { body_(operands_); }
  std::span<char*> operands() override { return operands_; }

 private:
  std::array<char*, N> operands_;
  Body body_;
};

// Out of line and cold, so that the kernels' eager path stays as small (and as inlinable)
// as it was without recording.
template <size_t N, typename Body>
[[gnu::noinline, gnu::cold]] void record_and_run(LaunchRecorder& recorder, const std::array<char*, N>& operands,
                                                 const Body& body) {
  auto recorded = std::make_unique<BodyLaunch<N, Body>>(operands, body);
  const Launch& copy = *recorded;
  recorder.launches.push_back(std::move(recorded));
  copy.run();
}

}  // namespace detail

// Runs body(operands); while a recorder is installed, first records a copy of the body and
// runs that copy. `body` takes `const std::array<char*, N>&`, must touch memory only through
// those addresses, and must hold everything else by value.
template <size_t N, typename Body>
[[gnu::always_inline]] inline void launch(const std::array<char*, N>& operands, const Body& body) {
  if (LaunchRecorder* recorder = launch_recorder()) [[unlikely]] {
    detail::record_and_run(*recorder, operands, body);
    return;
  }
  body(operands);
}

}  // namespace tg::cpu
