// Out variants: for a functional operator ("tg::mm"), the overload that writes its results into
// caller-given tensors ("tg::mm.out"), found from the schemas alone. An out variant has the
// same name, the functional overload's arguments in the same order with the same types, and
// one more keyword-only "Tensor(x!)" argument per return, wherever the keyword-only ones sit.
#pragma once

#include <optional>
#include <vector>

#include "dispatch/dispatcher.h"

namespace tg::jit {

struct OutVariant {
  OperatorHandle op;
  // Per argument of the out variant: the functional argument it takes (>= 0), or -(r + 1) for
  // the tensor that receives return r.
  std::vector<int> argument_sources;
};

// nullopt when the operator mutates, returns no tensors or aliases, or has no out variant.
std::optional<OutVariant> find_out_variant(const OperatorHandle& functional);

}  // namespace tg::jit
