// The user-facing autograd functions, as LibTorch's torch::autograd namespace has them.
#pragma once

#include <optional>

#include "autograd/grad_mode.h"
#include "autograd/node.h"

namespace tg::autograd {

// Accumulates d(sum of tensors[i] * grad_tensors[i]) into the .grad() of the leaves.
// A grad_tensors entry may be undefined only for a one-element tensor (implicitly 1).
// retain_graph defaults to create_graph. With `inputs`, only those leaves accumulate.
void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const variable_list& inputs = {});

// The gradients of `outputs` with respect to `inputs` (not accumulated into .grad()).
// An input that `outputs` do not depend on is an error unless allow_unused, which gives an
// undefined tensor for it.
variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs = {},
                   std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                   bool allow_unused = false);

}  // namespace tg::autograd
