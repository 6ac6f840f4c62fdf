// make_graphed_callables: a function made of two recorded graphs, forward and backward
// (PyTorch's torch.cuda.make_graphed_callables). Calling it copies the inputs into static
// input tensors and replays the forward graph; a backward pass through its outputs copies the
// incoming gradients into static tensors and replays the backward graph. Both graphs share
// one pool, so backward reads forward's saved tensors in place.
// Invariants: inputs must have the sample inputs' dtypes and sizes; the outputs of a call are
// overwritten by the next call (clone them to keep them).
#pragma once

#include <vector>

#include "graphs/tree.h"

namespace tg::graphs {

// Runs fn on the samples `warmup_runs` times (forward and backward) before recording, so that
// lazy initialisation does not land in the graphs. Inputs that require grad get gradients.
TreeFunction make_graphed_callables(TreeFunction fn, const std::vector<Tensor>& sample_inputs, int warmup_runs = 3);

}  // namespace tg::graphs
