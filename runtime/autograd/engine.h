// Engine: runs the backward pass over the recorded graph.
// It counts, for each node reachable from the roots, how many edges lead to it; a node is
// ready when all its incoming gradients have arrived (its InputBuffer is complete); ready
// nodes run highest sequence_nr first. Each call runs on the calling thread with its own
// graph task, so two threads can run independent backward passes at once. See
// Note [Engine and devices] in docs/autograd.md for where per-device streams plug in.
#pragma once

#include "autograd/node.h"

namespace tg::autograd {

class Engine {
 public:
  static Engine& get_default_engine();

  // Propagates `grad_outputs` (one per root edge) from `roots`. With `outputs` given
  // (autograd::grad), returns the gradients arriving at those edges, in order, and
  // accumulates into no leaf; otherwise returns {} and leaves accumulate into .grad().
  // With `outputs` and accumulate_grad (backward(inputs=...)), only the nodes of `outputs`
  // (and those leading to them) run, and {} is returned.
  // keep_graph=false releases each node's saved tensors after it runs; create_graph=true
  // records the backward computation itself (grad mode on while nodes run).
  // Errors a node raises propagate to the caller; the graph task is then discarded.
  variable_list execute(const edge_list& roots, const variable_list& grad_outputs, bool keep_graph, bool create_graph,
                        const edge_list& outputs = {}, bool accumulate_grad = false);
};

}  // namespace tg::autograd
