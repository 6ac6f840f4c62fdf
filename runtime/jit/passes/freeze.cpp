#include "jit/passes/freeze.h"

#include <sstream>

#include "core/error.h"
#include "jit/passes/constant_folding.h"
#include "jit/passes/dead_code_elimination.h"

namespace tg::jit {

// Note [Frozen inputs]
// A frozen input's tensor becomes a graph constant: the graph holds the tensor itself (detached,
// sharing its storage), not a copy, and what folding derives from it is either a view of it
// (weight.t()) or a fresh tensor computed from its values at freezing time. So, as with
// torch.jit.freeze, a frozen value must not change afterwards: folded results would be stale.
// Rather than let that go silently, StaticModule (static_module.h) records each frozen
// tensor's version counter when it freezes and refuses to run (tg::Error naming the input)
// once an in-place operation, copy_ or an optimizer step has written to it: build the module
// again to take the new values. Writes that bypass the version counter (through data_ptr(),
// or from_blob memory changed behind the tensor's back) are not seen, as in PyTorch.

Graph freeze_inputs(const Graph& graph, const std::map<std::string, Tensor>& values, int* folded) {
  Graph frozen = graph;
  for (const auto& [name, value] : values) {
    int id = -1;
    for (int input : graph.inputs()) {
      if (graph.name(input) == name) id = input;
    }
    if (id < 0) {
      std::ostringstream names;
      for (int input : graph.inputs()) names << (names.tellp() > 0 ? ", " : "") << "'" << graph.name(input) << "'";
      TG_CHECK(false, "[jit::freeze_inputs] the graph has no input named '", name, "'; its inputs are ", names.str());
    }
    TG_CHECK(value.defined(), "[jit::freeze_inputs] input '", name, "' gets an undefined tensor");
    frozen.make_input_constant(id, value.detach());
  }
  return eliminate_dead_code(fold_constants(frozen, folded));
}

}  // namespace tg::jit
