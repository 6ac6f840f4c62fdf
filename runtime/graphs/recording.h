// Recording: the kernels a captured region launched, with the fixed addresses they read and
// wrote, replayable without the dispatcher (the CPU backend of tg::graphs::Graph).
// Invariant: every tensor in `calls` is either memory the recording does not own (pool
// memory, held by non-owning aliases) or a tensor from outside the capture, held strongly;
// replay() runs the calls in capture order, so pool blocks reused during capture are reused
// in the same order. A call's launches touch only memory its arguments hold or pool memory.
// See Note [CPU recording] and Note [Replay by launches].
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "dispatch/dispatcher.h"

namespace tg::cpu {
class Launch;  // kernels/cpu/launch.h
}  // namespace tg::cpu

namespace tg::graphs {

// Note [CPU recording]
// While a capture runs on a thread, the Tracer key is included there and graphs' call
// interceptor (jit/tracer.h, Note [Call interceptor]) sees every operator call below autograd.
// It runs the call and keeps, per call, what replay must do:
// - a call whose kernel did nothing but CPU loop launches: those launches (Note [Replay by
//   launches]);
// - otherwise, through its kernel:
//   - a functional operator with an out= variant and contiguous outputs: the out= kernel with
//     the captured outputs as out arguments (the outputs' addresses are fixed);
//   - an operator that writes an argument (in-place, out=): its own kernel, same arguments;
//   - anything else: its functional kernel, then a copy into the captured outputs;
// - a view (returns alias an argument, nothing written): nothing, its geometry is fixed.
// Kernels are resolved once, at capture, for the backend of the call's device. Pool tensors
// are kept as non-owning aliases: when the captured code frees a temporary, its block goes
// back to the pool and a later call of the capture reuses it, as on a CUDA graph. The
// operators a kernel calls inside are not recorded (its replay runs them again).
//
// Note [Replay by launches]
// The CPU analogue of CUDA stream capture: the loops a kernel runs (kernels/cpu/launch.h,
// Note [Launch replay]) are recorded as launches, each a loop body with its operands'
// addresses, geometry, dtypes and constants fixed. A call replays by launches alone, with no
// dispatch, meta function, out= checks, argument unboxing or loop setup, when the recorder can
// show that the launches were all it did: its kernel declared cpu::LaunchesOnly, it called no
// operator inside (nested calls reach the interceptor during a capture, and refuse), it read
// no tensor data, and every launch operand inside a tensor the recording replaced by a copy
// (a constant: Note [What a recording holds]) is that tensor's start, with the copy laid out
// the same. Any other call replays through its kernel (counted: num_kernel_calls(), with the
// reason kept). Replay bumps the version of the tensors a launch-replayed call writes, as the
// kernel's wrapper would.
struct RecordedCall {
  explicit RecordedCall(OperatorHandle o);
  ~RecordedCall();  // out of line: cpu::Launch is complete only there
  RecordedCall(RecordedCall&&) noexcept;
  RecordedCall& operator=(RecordedCall&&) noexcept;

  OperatorHandle op;
  const KernelFunction* kernel = nullptr;
  DispatchKeySet ks;
  Stack arguments;
  std::vector<Tensor> copy_into;  // the functional fallback's destinations, else empty
  // Replay by launches when `by_launches`; else through `kernel`, for `kernel_reason`.
  bool by_launches = false;
  std::vector<std::unique_ptr<cpu::Launch>> launches;
  std::vector<StorageImpl*> written;  // storages whose version replay bumps (launch replay)
  std::string kernel_reason;
};

// A call that replays through its kernel, and why it cannot replay by launches.
struct KernelReplayedCall {
  std::string op;
  std::string reason;
};

class Recording {
 public:
  void replay() const;
  size_t num_calls() const { return calls_.size(); }
  // Calls that replay through their functional kernel and a copy (no out= variant).
  size_t num_fallback_calls() const;
  // Calls that replay by launches only (Note [Replay by launches]), and the others.
  size_t num_launch_calls() const;
  size_t num_kernel_calls() const { return num_calls() - num_launch_calls(); }
  std::vector<KernelReplayedCall> kernel_replayed_calls() const;
  void add(RecordedCall call);

 private:
  // How replay calls a kernel: the arguments in place, through its unboxed entry point when
  // it has one (no IValue copies), else a boxed call on a copy of them.
  struct KernelCall {
    bool array_call = false;
    std::vector<const IValue*> arguments;
  };
  void replay_through_kernel(const RecordedCall& call, const KernelCall& how) const;

  std::vector<RecordedCall> calls_;
  std::vector<KernelCall> kernel_calls_;  // parallel to calls_
};

namespace detail {
// Kernel calls made by replays on this thread, all recordings together (a test hook: a
// replay by launches makes none).
size_t replay_kernel_call_count();
}  // namespace detail

}  // namespace tg::graphs
