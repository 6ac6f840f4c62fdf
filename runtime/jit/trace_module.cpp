#include "jit/trace_module.h"

#include "core/error.h"

namespace tg::jit {

// Note [Tracing a module]
// The tracer keys values by TensorImpl, so a module's parameter becomes a graph input simply by
// being passed as one: the forward reads the very same impls from the module's members, and
// the tracer finds them bound to inputs instead of failing on a tensor "captured from
// outside". Parameters come first (then buffers, then data), as LibTorch's frozen modules and
// ONNX exports order them, and their dotted names make the saved YAML say which is which.
// Autograd still sees the parameters as leaves requiring grad, so a forward that calls
// backward (a training step) traces too.

ModuleState module_state(const nn::Module& module) {
  ModuleState state;
  for (const auto& item : module.named_parameters()) {
    state.names.push_back(item.key());
    state.tensors.push_back(item.value());
  }
  for (const auto& item : module.named_buffers()) {
    state.names.push_back(item.key());
    state.tensors.push_back(item.value());
  }
  return state;
}

Graph trace_module(const nn::Module& module, const TracedFunction& forward, const std::vector<Tensor>& inputs) {
  ModuleState state = module_state(module);
  const size_t num_state = state.tensors.size();
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (size_t p = 0; p < num_state; ++p) {
      TG_CHECK(inputs[i].unsafeGetTensorImpl() != state.tensors[p].unsafeGetTensorImpl(), "[jit::trace_module] input ", i, " is the module's tensor '",
               state.names[p], "'; it is an input already");
    }
    state.names.push_back("input" + std::to_string(i));
    state.tensors.push_back(inputs[i]);
  }
  auto call = [&](const std::vector<Tensor>& all) {
    return forward(std::vector<Tensor>(all.begin() + static_cast<std::ptrdiff_t>(num_state), all.end()));
  };
  return trace(call, state.tensors, state.names);
}

}  // namespace tg::jit
