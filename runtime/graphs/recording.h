// Recording: the kernels a captured region launched, with the fixed addresses they read and
// wrote, replayable without the dispatcher (the CPU backend of tg::graphs::Graph).
// Invariant: every tensor in `calls` is either memory the recording does not own (pool
// memory, held by non-owning aliases) or a tensor from outside the capture, held strongly;
// replay() runs the calls in capture order, so pool blocks reused during capture are reused
// in the same order. See Note [CPU recording].
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/tensor.h"
#include "dispatch/dispatcher.h"

namespace tg::graphs {

// Note [CPU recording]
// While a capture runs on a thread, the Tracer key is included there and graphs' call
// interceptor (jit/tracer.h, Note [Call interceptor]) sees every operator call below autograd.
// It runs the call (with Tracer excluded, so the operators a kernel calls inside are not
// recorded twice) and keeps, per call, what replay must do:
// - a functional operator with an out= variant and contiguous outputs: the out= kernel with
//   the captured outputs as out arguments (the outputs' addresses are fixed);
// - an operator that writes an argument (in-place, out=): its own kernel, same arguments;
// - a view (returns alias an argument, nothing written): nothing, its geometry is fixed;
// - anything else: its functional kernel, then a copy into the captured outputs.
// Kernels are resolved once, at capture, for the backend of the call's device. Pool tensors
// are kept as non-owning aliases: when the captured code frees a temporary, its block goes
// back to the pool and a later call of the capture reuses it, as on a CUDA graph.
struct RecordedCall {
  OperatorHandle op;
  const KernelFunction* kernel = nullptr;
  DispatchKeySet ks;
  Stack arguments;
  std::vector<Tensor> copy_into;  // the functional fallback's destinations, else empty
};

class Recording {
 public:
  void replay() const;
  size_t num_calls() const { return calls_.size(); }
  // Calls that replay through their functional kernel and a copy (no out= variant).
  size_t num_fallback_calls() const;
  void add(RecordedCall call) { calls_.push_back(std::move(call)); }

 private:
  std::vector<RecordedCall> calls_;
};

}  // namespace tg::graphs
