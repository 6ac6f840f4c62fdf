// Freezing: graph inputs whose values the caller promises not to change (a model's parameters
// at inference) become constants, as torch.jit.freeze inlines a module's parameters. Constant
// folding then evaluates, once, what depends on them alone (weight.t() and the like), and
// dead-code elimination drops those nodes, so a run does less. Only when asked: a frozen graph
// no longer takes those inputs. See Note [Frozen inputs] for what happens when they change.
#pragma once

#include <map>
#include <string>

#include "jit/graph.h"

namespace tg::jit {

// The graph with each input named in `values` replaced by that tensor (which must match the
// input's dtype, device and sizes), then folded and without dead code. Throws tg::Error for a
// name that is not a graph input. `folded`, when given, receives how many nodes were folded.
Graph freeze_inputs(const Graph& graph, const std::map<std::string, Tensor>& values, int* folded = nullptr);

}  // namespace tg::jit
