// tg::func::functional_call(module, tensors, inputs...): runs a tg::nn module's forward with
// some of its parameters and buffers (named as named_parameters()/named_buffers() name them,
// dotted) replaced by given tensors, as torch.func.functional_call. Invariant: while the call
// runs, each replaced module tensor carries the FuncTorchBatched dispatch key and every operator
// reaching it sees the given tensor instead; afterwards (on return or exception) the module's
// tensors are exactly as before. See Note [functional_call by substitution] in
// functional_call.cpp. Threading: the substitution is thread-local (another thread using the
// same module meanwhile sees the module's own tensors), but marking the module's tensors is
// not: one module must not be under functional_call on two threads at once.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "nn/module.h"

namespace tg::func {

// Named tensors standing in for a module's parameters and buffers ("0.weight", "fc.bias").
using NamedTensors = std::map<std::string, Tensor>;

namespace detail {

// RAII: substitutes `tensors` for the module's tensors of the same names. Raises (naming
// functional_call) for an unknown name, an undefined tensor, or one whose shape or dtype
// differs from the module tensor's.
class SubstitutionGuard {
 public:
  SubstitutionGuard(const nn::Module& module, const NamedTensors& tensors);
  ~SubstitutionGuard();
  SubstitutionGuard(const SubstitutionGuard&) = delete;
  SubstitutionGuard& operator=(const SubstitutionGuard&) = delete;

 private:
  struct Saved {
    Tensor module_tensor;
    bool had_key;
    Tensor previous;  // an enclosing functional_call's substitute for it, if any
  };
  std::vector<Saved> saved_;
};

}  // namespace detail

// module->forward(inputs...) with `tensors` standing in for the module's parameters and
// buffers of the same names; the module's own tensors are used for names not given.
// `module` is a ModuleHolder (tg::nn::Linear) or a std::shared_ptr to a module.
template <typename ModuleType, typename... Inputs>
auto functional_call(ModuleType& module, const NamedTensors& tensors, Inputs&&... inputs) {
  detail::SubstitutionGuard guard(*module, tensors);
  return module->forward(std::forward<Inputs>(inputs)...);
}

// The module's parameters and buffers, by name: the usual starting point for functional_call.
NamedTensors named_tensors(const nn::Module& module);

}  // namespace tg::func
