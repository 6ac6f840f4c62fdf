#include "jit/tracer.h"

#include <memory>
#include <unordered_map>
#include <utility>

#include "core/data_read_hook.h"
#include "core/error.h"
#include "core/storage.h"
#include "dispatch/dispatcher.h"
#include "dispatch/library.h"

namespace tg::jit {

// Note [What the tracer records]
// The Tracer key is included in this thread's key set while tracing, and its fallback serves
// every operator. An operator whose only kernel is CompositeImplicitAutograd is not recorded:
// the fallback lets it decompose, and the operators it calls come back through the dispatcher
// and are recorded themselves, so a graph holds only operators with real kernels (which have
// out= variants for the static runtime). Any other operator becomes one node; it runs with
// the Tracer key excluded, so the operators its kernel calls internally are not recorded
// twice. Values are identified by TensorImpl: a returned tensor gets a new value id even when
// it is an input's impl (in-place ops return self), so the graph stays in SSA form and later
// readers see the mutated version. Data reads (item(), printing) throw while user code runs,
// and are allowed inside a recorded operator's kernel.

namespace {

struct TracingState {
  Graph graph;
  std::unordered_map<const TensorImpl*, int> value_of;
  // Per value id: its tensor, kept alive so that no impl address is reused during the trace.
  std::vector<Tensor> tensor_of;
  // Per storage: the values on it, oldest first. See Note [Aliases the tracer did not see made].
  std::unordered_map<const StorageImpl*, std::vector<int>> values_on_storage;

  void bind(const Tensor& t, int id) {
    value_of[t.unsafeGetTensorImpl()] = id;
    if (tensor_of.size() <= static_cast<size_t>(id)) tensor_of.resize(static_cast<size_t>(id) + 1);
    tensor_of[static_cast<size_t>(id)] = t;
    if (t.storage()) values_on_storage[t.storage().get()].push_back(id);
  }
};

// Note [Aliases the tracer did not see made]
// Autograd saves a node's own output as a fresh alias of it (SavedVariable's
// alias_without_history: a new TensorImpl on the same storage, same geometry), so the
// backward pass reads tensors whose impls the tracer never saw returned. Such a tensor is the
// value on the same storage with the same offset, sizes, strides and dtype; the latest such
// value is the one whose contents it shows (an in-place write makes a newer value).
int find_alias(const TracingState& state, const Tensor& t) {
  if (!t.storage()) return -1;
  auto it = state.values_on_storage.find(t.storage().get());
  if (it == state.values_on_storage.end()) return -1;
  for (auto id = it->second.rbegin(); id != it->second.rend(); ++id) {
    const Tensor& known = state.tensor_of[static_cast<size_t>(*id)];
    if (known.scalar_type() == t.scalar_type() && known.storage_offset() == t.storage_offset() &&
        known.sizes() == t.sizes() && known.strides() == t.strides()) {
      return *id;
    }
  }
  return -1;
}

thread_local TracingState* tls_state = nullptr;
thread_local CallInterceptor tls_interceptor = nullptr;  // See Note [Call interceptor].

[[noreturn]] void forbid_data_read(std::string_view what) {
  TG_CHECK(false, "[jit::trace] the traced function reads tensor data (", what,
           "); a graph cannot depend on values. Move the read out of the traced function");
  __builtin_unreachable();
}

// Whether the operator only decomposes (see the Note); cached per operator.
bool only_decomposes(const OperatorHandle& op) {
  thread_local std::unordered_map<const OperatorEntry*, bool> cache;
  auto [it, inserted] = cache.try_emplace(&op.entry(), false);
  if (inserted) {
    bool composite_implicit = false, other = false;
    for (DispatchKey k : op.registeredKeys()) {
      if (k == DispatchKey::CompositeImplicitAutograd) composite_implicit = true;
      if (is_backend_key(k) || k == DispatchKey::CompositeExplicitAutograd) other = true;
    }
    it->second = composite_implicit && !other;
  }
  return it->second;
}

TensorType type_of(const Tensor& t) { return {t.scalar_type(), t.sizes().vec(), t.device()}; }

int value_of_tensor(TracingState& state, const OperatorHandle& op, const Argument& arg, const Tensor& t) {
  auto it = state.value_of.find(t.unsafeGetTensorImpl());
  if (it != state.value_of.end()) return it->second;
  if (t.unsafeGetTensorImpl()->is_wrapped_number()) {
    // A C++ number that a composite kernel wrapped as a 0-dim tensor (x * 2.0): a constant.
    const int id = state.graph.add_constant(t);
    state.bind(t, id);
    return id;
  }
  if (const int id = find_alias(state, t); id >= 0) {
    state.value_of[t.unsafeGetTensorImpl()] = id;
    return id;
  }
  TG_CHECK(false, "[jit::trace] ", op.operator_name().str(), ": argument '", arg.name,
           "' is a tensor that is neither a graph input nor made by a traced operator (it was captured from "
           "outside the traced function); pass it as an input");
  return -1;
}

void tracer_fallback(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  TracingState* state = tls_state;
  const DispatchKeySet below = ks & DispatchKeySet::below(DispatchKey::Tracer);
  if (state == nullptr || only_decomposes(op)) {
    if (state == nullptr && tls_interceptor != nullptr && !only_decomposes(op)) {
      tls_interceptor(op, below, stack);
      return;
    }
    op.redispatchBoxed(below, stack);
    return;
  }
  const FunctionSchema& schema = op.schema();
  const std::string name = op.operator_name().str();
  for (const Argument& ret : schema.returns) {
    TG_CHECK(ret.type.base == BaseType::Tensor && !ret.type.is_list, "[jit::trace] ", name, " returns '",
             ret.type.str(), "': only operators that return tensors can be traced (a non-tensor result depends "
             "on data, and lists of tensors are not supported yet)");
  }
  const size_t num_args = schema.arguments.size();
  TG_INTERNAL_ASSERT(stack->size() >= num_args);
  Node node;
  node.op = name;
  const size_t base = stack->size() - num_args;
  for (size_t i = 0; i < num_args; ++i) {
    const IValue& v = (*stack)[base + i];
    const Argument& arg = schema.arguments[i];
    if (v.isTensor()) {
      const Tensor& t = v.toTensor();
      node.args.push_back(t.defined() ? NodeArg::value(value_of_tensor(*state, op, arg, t))
                                      : NodeArg::make_constant(IValue()));
    } else if (v.isTensorList()) {
      std::vector<int> ids;
      for (const Tensor& t : v.toTensorList()) ids.push_back(value_of_tensor(*state, op, arg, t));
      node.args.push_back(NodeArg::value_list(std::move(ids)));
    } else {
      TG_CHECK(!v.isList() || arg.type.base != BaseType::Tensor, "[jit::trace] ", name, ": argument '", arg.name,
               "' of type ", arg.type.str(), " cannot be recorded yet");
      node.args.push_back(NodeArg::make_constant(v));
    }
  }
  {
    ExcludeDispatchKeyGuard no_tracing(DispatchKey::Tracer);
    DataReadHook previous = set_data_read_hook(nullptr);
    try {
      op.redispatchBoxed(below, stack);
    } catch (...) {
      set_data_read_hook(previous);
      throw;
    }
    set_data_read_hook(previous);
  }
  const size_t num_returns = schema.returns.size();
  for (size_t i = stack->size() - num_returns; i < stack->size(); ++i) {
    const Tensor& out = (*stack)[i].toTensor();
    // An operator may leave an output undefined (a backward whose output_mask skips it): the
    // value exists with dtype "undefined", and nothing can read it (readers see None).
    const int id = state->graph.add_value(out.defined() ? type_of(out) : TensorType{ScalarType::Undefined, {}, Device(kCPU)});
    if (out.defined()) state->bind(out, id);
    node.outputs.push_back(id);
  }
  state->graph.add_node(std::move(node));
}

TG_LIBRARY_IMPL(_, Tracer, m) { m.fallback(KernelFunction::makeFromBoxedFunction(&tracer_fallback)); }

// Restores this thread's tracing state, hook and key set however trace() exits.
class TracingScope {
 public:
  explicit TracingScope(TracingState* state)
      : include_(DispatchKey::Tracer), previous_hook_(set_data_read_hook(&forbid_data_read)) {
    TG_CHECK(tls_state == nullptr, "[jit::trace] trace() was called inside a traced function");
    tls_state = state;
  }
  ~TracingScope() {
    tls_state = nullptr;
    set_data_read_hook(previous_hook_);
  }
  TracingScope(const TracingScope&) = delete;
  TracingScope& operator=(const TracingScope&) = delete;

 private:
  IncludeDispatchKeyGuard include_;
  DataReadHook previous_hook_;
};

}  // namespace

bool is_tracing() { return tls_state != nullptr; }

CallInterceptor set_call_interceptor(CallInterceptor interceptor) noexcept {
  return std::exchange(tls_interceptor, interceptor);
}

Graph trace(const TracedFunction& fn, const std::vector<Tensor>& example_inputs,
            const std::vector<std::string>& input_names) {
  TG_CHECK(input_names.empty() || input_names.size() == example_inputs.size(), "[jit::trace] got ",
           input_names.size(), " input names for ", example_inputs.size(), " inputs");
  auto state = std::make_unique<TracingState>();
  for (size_t i = 0; i < example_inputs.size(); ++i) {
    const Tensor& t = example_inputs[i];
    TG_CHECK(t.defined(), "[jit::trace] example input ", i, " is an undefined tensor");
    TG_CHECK(!state->value_of.contains(t.unsafeGetTensorImpl()), "[jit::trace] example input ", i,
             " is the same tensor as an earlier input; pass each tensor once");
    const int id = state->graph.add_input(type_of(t), input_names.empty() ? "input" + std::to_string(i)
                                                                         : input_names[i]);
    state->bind(t, id);
  }
  std::vector<Tensor> results;
  {
    TracingScope scope(state.get());
    results = fn(example_inputs);
  }
  for (size_t i = 0; i < results.size(); ++i) {
    int id = -1;
    if (results[i].defined()) {
      auto it = state->value_of.find(results[i].unsafeGetTensorImpl());
      id = it != state->value_of.end() ? it->second : find_alias(*state, results[i]);
    }
    TG_CHECK(id >= 0, "[jit::trace] output ", i,
             " of the traced function is not an input or a tensor made by a traced operator");
    state->graph.add_output(id);
  }
  // Constants get ids when first seen; renumbering puts them where a loaded file has them.
  return renumbered(state->graph);
}

}  // namespace tg::jit
