#include "functorch/functional_call.h"

#include <unordered_map>

#include "core/error.h"
#include "functorch/batched_tensor.h"
#include "functorch/batching_rules.h"

namespace tg::func {
namespace {

// Note [functional_call by substitution]: a module keeps its tensors as C++ members (LinearImpl's
// `weight`) that alias the entries of its parameter table, so replacing a table entry would not
// reach forward(), and there is no attribute to swap as PyTorch's functional_call swaps one.
// Instead the module's TensorImpl itself is marked with the FuncTorchBatched key (above Autograd,
// which functorch's own layer sits on too), and this thread's table says which tensor stands for
// it. Every operator call with a marked argument reaches a batching rule's entry (batch_entry in
// batching_rules.h) first, which puts the stand-in in its place and dispatches again: from there
// on the call sees the stand-in (a BatchedTensor, a dual tensor, a tensor with history) with all
// its keys. Metadata read without dispatch (sizes, dtype) comes from the module's own tensor,
// which is why a stand-in must have the same shape and dtype. A marked tensor is no
// BatchedTensorImpl, which maybe_batched checks.
using SubstituteTable = std::unordered_map<const TensorImpl*, Tensor>;

SubstituteTable& substitutes() {
  thread_local SubstituteTable table;
  return table;
}

// The argument with every substituted tensor replaced; `changed` says whether any was and
// `batched` whether a real BatchedTensor is among the arguments.
IValue substituted(const IValue& v, bool& changed, bool& batched) {
  auto one = [&](const Tensor& t) -> Tensor {
    if (!t.defined() || !t.unsafeGetTensorImpl()->key_set().has(DispatchKey::FuncTorchBatched)) return t;
    if (functorch::maybe_batched(t) != nullptr) {
      batched = true;
      return t;
    }
    auto it = substitutes().find(t.unsafeGetTensorImpl());
    if (it == substitutes().end()) return t;  // another thread's functional_call
    changed = true;
    return it->second;
  };
  if (v.isTensor()) return one(v.toTensor());
  if (v.isTensorList()) {
    std::vector<Tensor> out;
    for (const Tensor& t : v.toTensorList()) out.push_back(one(t));
    return out;
  }
  if (v.isList()) {
    std::vector<IValue> out;
    for (const IValue& e : v.toList()) out.push_back(substituted(e, changed, batched));
    return out;
  }
  return v;
}

std::string known_names(const NamedTensors& all) {
  std::string out;
  for (const auto& [name, t] : all) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

}  // namespace
}  // namespace tg::func

namespace tg::functorch {

std::atomic<int> active_substitutions{0};

bool handled_by_substitution(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  const size_t n = op.schema().arguments.size();
  bool changed = false;
  bool batched = false;
  std::vector<IValue> args(stack->end() - static_cast<std::ptrdiff_t>(n), stack->end());
  for (IValue& a : args) a = func::substituted(a, changed, batched);
  if (changed) {
    std::copy(args.begin(), args.end(), stack->end() - static_cast<std::ptrdiff_t>(n));
    op.callBoxed(stack);  // a fresh dispatch on the stand-ins' keys
    return true;
  }
  if (!batched) {
    // Only marked tensors of another thread's functional_call: this thread sees the module's own.
    op.redispatchBoxed(ks.remove(DispatchKey::FuncTorchBatched), stack);
    return true;
  }
  return false;
}

}  // namespace tg::functorch

namespace tg::func {

NamedTensors named_tensors(const nn::Module& module) {
  NamedTensors out;
  for (const auto& item : module.named_parameters()) out.emplace(item.key(), item.value());
  for (const auto& item : module.named_buffers()) out.emplace(item.key(), item.value());
  return out;
}

namespace detail {

SubstitutionGuard::SubstitutionGuard(const nn::Module& module, const NamedTensors& tensors) {
  const NamedTensors own = named_tensors(module);
  // Check everything before marking anything, so that an error leaves the module untouched.
  for (const auto& [name, given] : tensors) {
    auto it = own.find(name);
    TG_CHECK(it != own.end(), "[functional_call] the module has no parameter or buffer named '", name,
             "'; it has: ", known_names(own));
    TG_CHECK(given.defined(), "[functional_call] expected a defined tensor for '", name, "', got an undefined one");
    TG_CHECK(given.sizes() == it->second.sizes(), "[functional_call] expected '", name, "' of shape ",
             it->second.sizes(), " (the module's), got ", given.sizes());
    TG_CHECK(given.scalar_type() == it->second.scalar_type(), "[functional_call] expected '", name, "' of dtype ",
             it->second.scalar_type(), " (the module's), got ", given.scalar_type());
  }
  for (const auto& [name, given] : tensors) {
    const Tensor& mine = own.at(name);
    TensorImpl* impl = mine.unsafeGetTensorImpl();
    if (impl == given.unsafeGetTensorImpl()) continue;  // the module's own tensor: nothing to do
    SubstituteTable& table = substitutes();
    auto previous = table.find(impl);
    saved_.push_back({mine, impl->key_set().has(DispatchKey::FuncTorchBatched),
                      previous == table.end() ? Tensor() : previous->second});
    table[impl] = given;
    impl->add_key(DispatchKey::FuncTorchBatched);
    functorch::active_substitutions.fetch_add(1);
  }
}

SubstitutionGuard::~SubstitutionGuard() {
  SubstituteTable& table = substitutes();
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
    TensorImpl* impl = it->module_tensor.unsafeGetTensorImpl();
    if (it->previous.defined()) {
      table[impl] = it->previous;
    } else {
      table.erase(impl);
    }
    if (!it->had_key) impl->remove_key(DispatchKey::FuncTorchBatched);
    functorch::active_substitutions.fetch_sub(1);
  }
}

}  // namespace detail
}  // namespace tg::func
