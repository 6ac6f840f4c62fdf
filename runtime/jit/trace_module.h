// trace_module: captures a tg::nn module's forward as a jit::Graph whose first inputs are the
// module's parameters and buffers, named by their dotted paths ("0.weight", "ln1.bias"), so a
// saved graph says which tensor is which and a StaticModule runs with any values for them.
// Invariant: graph input i < num_state is the module's named_parameters() then named_buffers()
// entry i; the data inputs follow, named "input<k>". See Note [Tracing a module].
// Threading: as trace(): the forward runs once, on the calling thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "jit/tracer.h"
#include "nn/module.h"

namespace tg::jit {

// The module's parameters then buffers, in the order trace_module makes them graph inputs.
struct ModuleState {
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
};
ModuleState module_state(const nn::Module& module);

// Runs forward(inputs) once with the module's parameters and buffers as graph inputs ahead of
// `inputs`. `forward` must compute through `module`'s own tensors; a tensor captured from
// elsewhere fails as in trace(). Throws tg::Error when a data input is also one of the
// module's tensors.
Graph trace_module(const nn::Module& module, const TracedFunction& forward, const std::vector<Tensor>& inputs);

// For a module (a holder such as nn::Linear, or a std::shared_ptr to one) whose forward takes
// tensors and returns one tensor: trace_module(model, {x}) calls model->forward(x).
template <typename M>
Graph trace_module(M& module, const std::vector<Tensor>& inputs) {
  const nn::Module& base = *module;
  auto call = [&module](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    switch (in.size()) {
      case 1:
        if constexpr (requires { module->forward(in[0]); }) return {module->forward(in[0])};
        break;
      case 2:
        if constexpr (requires { module->forward(in[0], in[1]); }) return {module->forward(in[0], in[1])};
        break;
      case 3:
        if constexpr (requires { module->forward(in[0], in[1], in[2]); }) {
          return {module->forward(in[0], in[1], in[2])};
        }
        break;
      default:
        break;
    }
    TG_CHECK(false, "[jit::trace_module] the module's forward does not take ", in.size(),
             " tensors returning one tensor; pass a forward function to trace_module(module, forward, inputs)");
    return {};
  };
  return trace_module(base, call, inputs);
}

}  // namespace tg::jit
