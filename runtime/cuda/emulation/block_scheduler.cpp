// Runs the grid of an emulated launch: blocks one after another, the threads of a block as
// cooperative fibers. See Note [Emulated blocks].
#include <cxxabi.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "cuda/emulation/device_builtins.h"
#include "cuda/emulation/fiber.h"
#include "cuda/emulation/launch.h"
#include "cuda/emulation/device_state.h"
#include "cuda/emulation/race_detector.h"
#include "cuda/emulation/stream_capture.h"

// Note [Emulated blocks]
// A block's threads are fibers run by a scheduler on the launching host thread. A thread runs
// until it finishes or reaches a barrier (__syncthreads) or a warp primitive; then the
// scheduler runs the next thread that can go on. A barrier opens when every thread of the
// block has arrived; a warp primitive completes when every lane of its mask has arrived, and
// the last lane to arrive computes every lane's result (so a lane that runs ahead to the next
// primitive cannot overwrite a value another lane has not read yet). When no thread can go on
// and some have not finished, the block is deadlocked: a barrier that not all threads reach,
// lanes waiting for a lane that exited, lanes that disagree on a mask. That is reported as
// the launch's error (cudaErrorLaunchFailure, with the kernel, block and threads in the
// message), never a hang. The scheduler sweeps the threads in order, so execution is
// deterministic: a float sum through atomicAdd gives the same bits on every run here, which
// a GPU does not promise (see docs/cuda.md).

namespace tg::cuda::emu {

thread_local const ThreadCoordinates* current_coordinates = nullptr;

namespace {

constexpr int kWarp = 32;

enum class State : uint8_t { kNotStarted, kReady, kAtBarrier, kAtWarp, kDone };

struct Thread {
  ThreadCoordinates coordinates;
  FiberContext fiber;
  void* stack = nullptr;
  State state = State::kNotStarted;
};

struct Warp {
  unsigned int arrived = 0;  // lanes waiting in the pending primitive
  unsigned int mask = 0;     // the pending primitive's mask
  WarpOp op = WarpOp::kSync;
  int width = kWarp;
  const char* name = "";
  uint64_t input[kWarp] = {};
  int arg[kWarp] = {};
  uint64_t result[kWarp] = {};
};

struct BlockRun {
  std::vector<Thread> threads;
  std::vector<Warp> warps;
  std::vector<unsigned char> shared;  // dynamic shared memory
  int at_barrier = 0;
  int done = 0;
  int current = -1;
  void (*body)(void*) = nullptr;
  void* context = nullptr;
  FiberContext scheduler;
  std::string error;  // the first failure of a thread
};

thread_local BlockRun* current_block = nullptr;
thread_local StackPool stack_pool;

std::string format_index(const uint3& i) {
  return "(" + std::to_string(i.x) + "," + std::to_string(i.y) + "," + std::to_string(i.z) + ")";
}

std::string kernel_name(const void* kernel) {
  Dl_info info{};
  if (dladdr(kernel, &info) != 0 && info.dli_sname != nullptr) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status),
                                                     std::free);
    return status == 0 && demangled ? std::string(demangled.get()) : std::string(info.dli_sname);
  }
  char text[64];
  std::snprintf(text, sizeof text, "kernel at %p", kernel);
  return text;
}

// Switches from the running thread back to the scheduler; returns when the thread is resumed.
void yield_to_scheduler() {
  BlockRun& block = *current_block;
  fiber_switch(block.threads[static_cast<size_t>(block.current)].fiber, block.scheduler);
}

[[noreturn]] void thread_entry() {
  BlockRun& block = *current_block;
  Thread& self = block.threads[static_cast<size_t>(block.current)];
  try {
    block.body(block.context);
  } catch (const std::exception& e) {
    if (block.error.empty()) block.error = "thread " + format_index(self.coordinates.thread_idx) + " threw: " + e.what();
  } catch (...) {
    if (block.error.empty()) block.error = "thread " + format_index(self.coordinates.thread_idx) + " threw";
  }
  // `block` and `self` may not be used after the switch: the scheduler may have moved on.
  self.state = State::kDone;
  ++block.done;
  fiber_switch(self.fiber, block.scheduler);
  std::abort();  // a finished thread is never resumed
}

Thread& running_thread(const char* what) {
  if (current_block == nullptr || current_block->current < 0) {
    throw std::logic_error(std::string(what) + " called outside a kernel of the emulated device");
  }
  return current_block->threads[static_cast<size_t>(current_block->current)];
}

// Describes why no thread of the block can go on.
std::string deadlock_message(const BlockRun& block) {
  int at_barrier = 0, at_warp = 0, done = 0;
  std::string warp_detail;
  for (size_t w = 0; w < block.warps.size(); ++w) {
    const Warp& warp = block.warps[w];
    if (warp.arrived == 0) continue;
    char text[160];
    std::snprintf(text, sizeof text, "; warp %zu: lanes 0x%08x wait in %s (mask 0x%08x)", w, warp.arrived, warp.name,
                  warp.mask);
    if (warp_detail.size() < 400) warp_detail += text;
  }
  for (const Thread& t : block.threads) {
    at_barrier += t.state == State::kAtBarrier;
    at_warp += t.state == State::kAtWarp;
    done += t.state == State::kDone;
  }
  return "deadlock: of " + std::to_string(block.threads.size()) + " threads, " + std::to_string(at_barrier) +
         " wait at __syncthreads, " + std::to_string(at_warp) + " wait in a warp primitive and " +
         std::to_string(done) + " have exited (a barrier or warp primitive that not all its threads reach)" +
         warp_detail;
}

// Runs one block; returns the error text, empty on success.
std::string run_block(BlockRun& block) {
  const int n = static_cast<int>(block.threads.size());
  while (block.done < n) {
    bool progressed = false;
    for (int i = 0; i < n && block.error.empty(); ++i) {
      Thread& t = block.threads[static_cast<size_t>(i)];
      if (t.state != State::kNotStarted && t.state != State::kReady) continue;
      progressed = true;
      if (t.state == State::kNotStarted) {
        t.stack = stack_pool.take();
        fiber_init(t.fiber, t.stack, StackPool::kStackBytes, thread_entry);
        t.state = State::kReady;
      }
      block.current = i;
      current_coordinates = &t.coordinates;
      race_set_thread(i);
      fiber_switch(block.scheduler, t.fiber);
      race_set_thread(-1);
      block.current = -1;
      if (block.error.empty() && !race_report().empty()) block.error = race_report();
      if (t.state == State::kDone) {
        stack_pool.give_back(t.stack);
        t.stack = nullptr;
      }
    }
    if (!block.error.empty()) break;
    if (!progressed) {
      block.error = deadlock_message(block);
      break;
    }
  }
  // After a failure the waiting threads are abandoned: their stacks are reused as they are.
  for (Thread& t : block.threads) {
    if (t.stack != nullptr) stack_pool.give_back(t.stack);
    t.stack = nullptr;
  }
  return block.error;
}

bool config_fits(const LaunchConfig& c, std::string* why) {
  const uint64_t threads = uint64_t{c.block.x} * c.block.y * c.block.z;
  if (c.block.x == 0 || c.block.y == 0 || c.block.z == 0 || threads > 1024 || c.block.z > 64) {
    *why = "block " + format_index({c.block.x, c.block.y, c.block.z}) + " (at most 1024 threads, z at most 64)";
    return false;
  }
  if (c.grid.x == 0 || c.grid.y == 0 || c.grid.z == 0 || c.grid.x > 2147483647u || c.grid.y > 65535 ||
      c.grid.z > 65535) {
    *why = "grid " + format_index({c.grid.x, c.grid.y, c.grid.z}) + " (x at most 2^31-1, y and z at most 65535)";
    return false;
  }
  if (c.shared_bytes > 48 * 1024) {
    *why = "dynamic shared memory of " + std::to_string(c.shared_bytes) + " bytes (at most 49152)";
    return false;
  }
  return true;
}

}  // namespace

bool check_grid(const LaunchConfig& config) {
  if (current_block != nullptr) {
    set_launch_error(cudaErrorLaunchFailure, "a kernel launched another kernel (not emulated)");
    return false;
  }
  std::string why;
  if (!config_fits(config, &why)) {
    set_launch_error(cudaErrorInvalidConfiguration,
                     ("invalid configuration argument: kernel " + kernel_name(config.kernel) + ": " + why).c_str());
    return false;
  }
  if (!check_launch_stream(config.stream, &why)) {
    set_launch_error(cudaErrorInvalidResourceHandle,
                     ("invalid resource handle: kernel " + kernel_name(config.kernel) + ": " + why).c_str());
    return false;
  }
  return true;
}

void run_grid(const LaunchConfig& config, void (*thread_body)(void*), void* context) {
  if (!check_grid(config)) return;
  count_launch(config.stream);
  const dim3 b = config.block, g = config.grid;
  const int n = static_cast<int>(b.x * b.y * b.z);
  BlockRun block;
  block.threads.resize(static_cast<size_t>(n));
  block.warps.resize(static_cast<size_t>((n + kWarp - 1) / kWarp));
  block.shared.assign(config.shared_bytes, 0);
  block.body = thread_body;
  block.context = context;
  current_block = &block;
  for (unsigned int bz = 0; bz < g.z; ++bz) {
    for (unsigned int by = 0; by < g.y; ++by) {
      for (unsigned int bx = 0; bx < g.x; ++bx) {
        int linear = 0;
        for (unsigned int tz = 0; tz < b.z; ++tz) {
          for (unsigned int ty = 0; ty < b.y; ++ty) {
            for (unsigned int tx = 0; tx < b.x; ++tx) {
              Thread& t = block.threads[static_cast<size_t>(linear++)];
              t.coordinates = ThreadCoordinates{{tx, ty, tz}, {bx, by, bz}, b, g};
              t.state = State::kNotStarted;
            }
          }
        }
        for (Warp& w : block.warps) w = Warp{};
        block.at_barrier = 0;
        block.done = 0;
        race_begin_block(b, block.shared.empty() ? nullptr : block.shared.data(), block.shared.size());
        std::string error = run_block(block);
        race_end_block();
        if (!error.empty()) {
          current_block = nullptr;
          current_coordinates = nullptr;
          set_launch_error(cudaErrorLaunchFailure, ("unspecified launch failure: kernel " + kernel_name(config.kernel) +
                                                    ", block " + format_index({bx, by, bz}) + ": " + error)
                                                       .c_str());
          return;
        }
      }
    }
  }
  current_block = nullptr;
  current_coordinates = nullptr;
}

void block_barrier() {
  Thread& self = running_thread("__syncthreads");
  BlockRun& block = *current_block;
  self.state = State::kAtBarrier;
  if (++block.at_barrier == static_cast<int>(block.threads.size())) {
    // The last thread to arrive opens the barrier and goes on.
    block.at_barrier = 0;
    race_barrier();
    for (Thread& t : block.threads) t.state = State::kReady;
    self.state = State::kReady;
    return;
  }
  yield_to_scheduler();
}

namespace {

// The lane whose value lane `lane` receives, or -1 for its own (CUDA's rules per primitive).
int source_lane(WarpOp op, int lane, int arg, int width) {
  const int segment = lane - lane % width;
  switch (op) {
    case WarpOp::kShflIdx: return segment + ((arg % width) + width) % width;
    case WarpOp::kShflUp: return lane - arg < segment ? lane : lane - arg;
    case WarpOp::kShflDown: return lane + arg >= segment + width ? lane : lane + arg;
    case WarpOp::kShflXor: {
      const int target = lane ^ arg;
      return target >= segment + width || target < segment ? lane : target;
    }
    default: return lane;
  }
}

// Called by the last lane of the mask to arrive: every lane's result.
void complete_warp(Warp& warp, int warp_index, const BlockRun& block) {
  const unsigned int mask = warp.mask;
  uint64_t ballot = 0;
  for (int lane = 0; lane < kWarp; ++lane) {
    if ((mask >> lane & 1u) && warp.input[lane] != 0) ballot |= uint64_t{1} << lane;
  }
  for (int lane = 0; lane < kWarp; ++lane) {
    if (!(mask >> lane & 1u)) continue;
    switch (warp.op) {
      case WarpOp::kSync: warp.result[lane] = 0; break;
      case WarpOp::kBallot: warp.result[lane] = ballot; break;
      case WarpOp::kAny: warp.result[lane] = ballot != 0; break;
      case WarpOp::kAll: warp.result[lane] = ballot == mask; break;
      default: {
        const int source = source_lane(warp.op, lane, warp.arg[lane], warp.width);
        if (!(mask >> source & 1u)) {
          throw std::logic_error(std::string(warp.name) + ": lane " + std::to_string(lane) + " of warp " +
                                 std::to_string(warp_index) + " reads lane " + std::to_string(source) +
                                 ", which is not in the mask " + std::to_string(mask) + " (undefined on a GPU)");
        }
        warp.result[lane] = warp.input[source];
      }
    }
  }
  (void)block;
}

}  // namespace

uint64_t warp_exchange(WarpOp op, unsigned int mask, uint64_t value, int arg, int width, const char* name) {
  Thread& self = running_thread(name);
  BlockRun& block = *current_block;
  const int linear = block.current;
  const int warp_index = linear / kWarp, lane = linear % kWarp;
  Warp& warp = block.warps[static_cast<size_t>(warp_index)];
  const int lanes_in_warp = std::min<int>(kWarp, static_cast<int>(block.threads.size()) - warp_index * kWarp);
  const unsigned int existing = lanes_in_warp == kWarp ? 0xffffffffu : (1u << lanes_in_warp) - 1;
  if (!(mask >> lane & 1u)) {
    throw std::logic_error(std::string(name) + ": lane " + std::to_string(lane) + " calls it with mask " +
                           std::to_string(mask) + ", which leaves it out");
  }
  if ((mask & ~existing) != 0) {
    throw std::logic_error(std::string(name) + ": mask " + std::to_string(mask) + " names lanes that warp " +
                           std::to_string(warp_index) + " does not have (it has " + std::to_string(lanes_in_warp) +
                           " threads)");
  }
  if (width <= 0 || width > kWarp || (width & (width - 1)) != 0) {
    throw std::logic_error(std::string(name) + ": width " + std::to_string(width) + " is not a power of 2 up to 32");
  }
  if (warp.arrived == 0) {
    warp.mask = mask;
    warp.op = op;
    warp.width = width;
    warp.name = name;
  } else if (warp.mask != mask || warp.op != op) {
    throw std::logic_error(std::string(name) + ": lane " + std::to_string(lane) + " of warp " +
                           std::to_string(warp_index) + " (mask " + std::to_string(mask) +
                           ") meets lanes waiting in " + warp.name + " with mask " + std::to_string(warp.mask));
  }
  warp.input[lane] = value;
  warp.arg[lane] = arg;
  warp.arrived |= 1u << lane;
  self.state = State::kAtWarp;
  if (warp.arrived == mask) {
    complete_warp(warp, warp_index, block);
    race_warp_sync(warp_index, mask);
    warp.arrived = 0;
    for (int l = 0; l < kWarp; ++l) {
      if (mask >> l & 1u) block.threads[static_cast<size_t>(warp_index * kWarp + l)].state = State::kReady;
    }
    return warp.result[lane];
  }
  yield_to_scheduler();
  return warp.result[lane];
}

unsigned int active_mask() {
  running_thread("__activemask");
  const BlockRun& block = *current_block;
  const int warp_index = block.current / kWarp;
  unsigned int mask = 0;
  for (int l = 0; l < kWarp; ++l) {
    const size_t t = static_cast<size_t>(warp_index * kWarp + l);
    if (t < block.threads.size() && block.threads[t].state != State::kDone) mask |= 1u << l;
  }
  return mask;
}

void* dynamic_shared_memory() {
  running_thread("dynamic shared memory");
  return current_block->shared.empty() ? nullptr : current_block->shared.data();
}

}  // namespace tg::cuda::emu
