#include "jit/static/static_module.h"

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "jit/passes/freeze.h"
#include "jit/static/liveness.h"
#include "ops/tensor_from_values.h"

namespace tg::jit {

// Note [Static runtime plans]
// A graph records shapes for the example inputs only, and nothing in a schema says how an
// output's shape follows from the inputs' (meta functions do, but only by running). So, as
// PyTorch's Static Runtime does, the first run with a new input signature is a profiling
// run: every node runs its functional kernel, and the shapes, dtypes and layouts it produces
// are recorded. From them the plan decides, per node, whether it can write through its out=
// variant: it must have one (find_out_variant) and every output must be contiguous, as the
// preallocated tensors are (a strided output kept functional keeps eager's layout, so the
// results stay bit for bit the same as eager's). Outputs of such nodes that are intermediate
// get arena offsets from the planner (liveness.h says which and for how long); those that
// are graph outputs get a buffer of their own, kept by the plan and handed out again when
// the caller no longer holds it. Views, in-place operators and operators without an out=
// variant run their functional kernel every time, and what they allocate is theirs.
// Dispatch is resolved once per node: its kernel is looked up for the backend of its first
// tensor argument at construction (so Autograd is skipped), and planned
// runs call it directly. See Note [Processed nodes].

// Note [Processed nodes]
// As PyTorch Static Runtime's ProcessedNode, each plan turns every node into what one call
// needs and nothing more: the resolved kernel (the out= variant's when the node writes into
// planned memory), and an array of pointers to its arguments in call order: into the plan's
// value slots for tensors, into the graph's own IValues for constants (unpacked once, when
// loading). A planned run then calls KernelFunction::callFromArray, the kernel's unboxed entry
// instantiated per C++ signature at registration, which reads the arguments in place: no
// IValue stack, no tensor copies, no refcount traffic. Out= nodes' tensors sit in their slots
// for the plan's lifetime (the arena views and the output buffers), so their results are
// dropped, not stored; other nodes' results move into their slots. Only two things are rebuilt
// per run: Tensor[] arguments (a list is a value of its own) and the graph inputs' slots.
// Between runs the slots of inputs and of functional results are emptied, so the plan holds
// no memory the caller handed in or a view made.

struct StaticModule::ResolvedNode {
  std::optional<OperatorHandle> op;
  DispatchKeySet ks;
  const KernelFunction* kernel = nullptr;
  std::optional<OutVariant> out;
  DispatchKeySet out_ks;
  const KernelFunction* out_kernel = nullptr;
};

struct StaticModule::ProcessedNode {
  const OperatorHandle* op = nullptr;  // the overload called: the out variant's when use_out
  const KernelFunction* kernel = nullptr;
  DispatchKeySet ks;
  bool use_out = false;
  std::vector<const IValue*> args;  // in the called overload's argument order
  // Tensor[] arguments: the slot rebuilt per run (args points at it) and the values it lists.
  std::vector<std::pair<IValue*, std::vector<int>>> lists;
  std::vector<IValue*> outputs;  // the node's output slots, filled from results unless use_out
};

struct StaticModule::Plan {
  Signature signature;  // the inputs' signature this plan was made for (signature_of)
  PlanReport report;
  std::vector<ManagedBuffer> managed;
  Device device{DeviceType::CPU};
  DataPtr arena;
  std::vector<int> output_buffers;      // values with a buffer of their own (graph outputs)
  std::vector<TensorType> types;        // per value, from the profiling run
  std::vector<bool> use_out;            // per node
  int64_t num_out_nodes = 0;
  // Per value, its slot: arena views, output buffers and constants stay; the rest is emptied
  // after every run (transient). Never resized once nodes point into it.
  std::vector<IValue> slots;
  std::vector<int> transient;
  std::vector<IValue> list_slots;       // one per Tensor[] argument, rebuilt per run
  std::vector<ProcessedNode> nodes;
  Stack results;                        // scratch for functional nodes' results
};

namespace {

DispatchKeySet resolve_key_set(const OperatorHandle& op, Device device) {
  const DispatchKey backend = device.is_cuda() ? DispatchKey::CUDA : DispatchKey::CPU;
  return DispatchKeySet{backend, DispatchKey::BackendSelect} & op.entry().dispatch_mask();
}

Device device_of_node(const Graph& graph, const Node& node) {
  for (const NodeArg& arg : node.args) {
    if (!arg.values.empty()) return graph.type(arg.values[0]).device;
  }
  for (int v : node.outputs) return graph.type(v).device;
  return Device(DeviceType::CPU);
}

void push_arg(const NodeArg& arg, const std::vector<Tensor>& values, Stack& stack) {
  switch (arg.kind) {
    case NodeArg::Kind::Value:
      stack.emplace_back(values[static_cast<size_t>(arg.values[0])]);
      break;
    case NodeArg::Kind::ValueList: {
      std::vector<Tensor> list;
      list.reserve(arg.values.size());
      for (int v : arg.values) list.push_back(values[static_cast<size_t>(v)]);
      stack.emplace_back(std::move(list));
      break;
    }
    case NodeArg::Kind::Constant:
      stack.push_back(arg.constant);
      break;
  }
}

}  // namespace

StaticModule::StaticModule(Graph graph, StaticModuleOptions options)
    : graph_(options.frozen_inputs.empty() ? std::move(graph) : freeze_inputs(graph, options.frozen_inputs)) {
  for (auto& [name, tensor] : options.frozen_inputs) frozen_.push_back({name, tensor, tensor._version()});
  aliases_ = analyze_aliases(graph_);  // also checks that every operator exists
  for (int v = 0; v < graph_.num_values(); ++v) {
    if (graph_.is_constant(v)) constant_ids_.push_back(v);
  }
  for (const Node& node : graph_.nodes()) {
    ResolvedNode rn;
    rn.op = Dispatcher::singleton().findSchemaOrThrow(node.op);
    TG_CHECK(node.args.size() == rn.op->schema().arguments.size(), "[StaticModule] node ", node.op, " has ",
             node.args.size(), " arguments; its schema has ", rn.op->schema().arguments.size());
    const Device device = device_of_node(graph_, node);
    rn.ks = resolve_key_set(*rn.op, device);
    rn.kernel = &rn.op->entry().lookup(rn.ks);
    rn.out = find_out_variant(*rn.op);
    if (rn.out) {
      rn.out_ks = resolve_key_set(rn.out->op, device);
      rn.out_kernel = &rn.out->op.entry().lookup(rn.out_ks);
    }
    nodes_.push_back(std::move(rn));
  }
}

StaticModule::~StaticModule() = default;

const PlanReport* StaticModule::last_plan() const { return last_plan_ ? &last_plan_->report : nullptr; }

const std::vector<ManagedBuffer>* StaticModule::last_managed_buffers() const {
  return last_plan_ ? &last_plan_->managed : nullptr;
}

int64_t StaticModule::num_out_variant_nodes() const { return last_plan_ ? last_plan_->num_out_nodes : 0; }

void StaticModule::check_inputs(const std::vector<Tensor>& inputs) const {
  TG_CHECK(inputs.size() == graph_.inputs().size(), "[StaticModule::run] expected ", graph_.inputs().size(),
           " inputs, got ", inputs.size(),
           frozen_.empty() ? "" : " (frozen inputs are not passed: the module holds them)");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorType& expected = graph_.type(graph_.inputs()[i]);
    const Tensor& t = inputs[i];
    TG_CHECK(t.defined(), "[StaticModule::run] input ", i, " ('", graph_.name(graph_.inputs()[i]),
             "') is undefined");
    TG_CHECK(t.scalar_type() == expected.dtype && t.device() == expected.device &&
                 static_cast<size_t>(t.dim()) == expected.sizes.size(),
             "[StaticModule::run] input ", i, " ('", graph_.name(graph_.inputs()[i]), "') should be like ", expected,
             " (any sizes of that rank), got ", TensorType{t.scalar_type(), t.sizes().vec(), t.device()});
  }
}

void StaticModule::signature_of(const std::vector<Tensor>& inputs, Signature& sig) const {
  sig.clear();
  for (const Tensor& t : inputs) {
    sig.push_back(static_cast<int64_t>(t.scalar_type()));
    sig.push_back(static_cast<int64_t>(t.device().type()) * 256 + t.device().index());
    sig.push_back(t.dim());
    for (int64_t s : t.sizes()) sig.push_back(s);
    // Strides matter too: a kernel may take another path for a strided input.
    for (int64_t s : t.strides()) sig.push_back(s);
  }
}

bool StaticModule::matches_signature(const Signature& sig, const std::vector<Tensor>& inputs) const {
  // The same walk as signature_of, comparing instead of appending.
  size_t k = 0;
  for (const Tensor& t : inputs) {
    const int64_t dim = t.dim();
    if (k + 3 + 2 * static_cast<size_t>(dim) > sig.size()) return false;
    if (sig[k] != static_cast<int64_t>(t.scalar_type()) ||
        sig[k + 1] != static_cast<int64_t>(t.device().type()) * 256 + t.device().index() || sig[k + 2] != dim) {
      return false;
    }
    k += 3;
    for (int64_t s : t.sizes()) {
      if (sig[k++] != s) return false;
    }
    for (int64_t s : t.strides()) {
      if (sig[k++] != s) return false;
    }
  }
  return k == sig.size();
}

void StaticModule::check_frozen() const {
  for (const FrozenInput& f : frozen_) {
    TG_CHECK(f.tensor._version() == f.version, "[StaticModule::run] frozen input '", f.name,
             "' was written in place after the module froze it (version ", f.version, " then, ", f.tensor._version(),
             " now): its folded constants would be stale; build the StaticModule again with the new values");
  }
}

std::vector<Tensor> StaticModule::run(const std::vector<Tensor>& inputs) {
  check_frozen();
  check_inputs(inputs);
  NoGradGuard no_grad;
  AutoDispatchBelowAutograd below_autograd;
  // Note [Last plan first]: a server runs one signature over and over, so the last plan's
  // signature is compared with the inputs in place before one is built and looked up.
  if (last_plan_ != nullptr && matches_signature(last_plan_->signature, inputs)) {
    return run_planned(*last_plan_, inputs);
  }
  signature_of(inputs, signature_scratch_);
  auto it = plans_.find(signature_scratch_);
  if (it != plans_.end()) {
    last_plan_ = it->second.get();
    return run_planned(*it->second, inputs);
  }
  std::vector<Tensor> values;
  std::vector<Tensor> outputs = run_functional(inputs, values);
  std::unique_ptr<Plan> plan = make_plan(values);
  plan->signature = signature_scratch_;
  last_plan_ = plan.get();
  plans_.emplace(signature_scratch_, std::move(plan));
  return outputs;
}

void StaticModule::bind_inputs(const std::vector<Tensor>& inputs, std::vector<Tensor>& values) const {
  values.assign(static_cast<size_t>(graph_.num_values()), Tensor());
  for (size_t i = 0; i < inputs.size(); ++i) values[static_cast<size_t>(graph_.inputs()[i])] = inputs[i];
  for (int v : constant_ids_) values[static_cast<size_t>(v)] = graph_.constant(v);
}

std::vector<Tensor> StaticModule::run_functional(const std::vector<Tensor>& inputs, std::vector<Tensor>& values) {
  bind_inputs(inputs, values);
  Stack stack;
  for (size_t k = 0; k < nodes_.size(); ++k) {
    const Node& node = graph_.nodes()[k];
    const ResolvedNode& rn = nodes_[k];
    stack.clear();
    for (const NodeArg& arg : node.args) push_arg(arg, values, stack);
    rn.kernel->callBoxed(*rn.op, rn.ks, &stack);
    TG_CHECK(stack.size() >= node.outputs.size(), "[StaticModule] ", node.op, " returned ", stack.size(),
             " values, the graph expects ", node.outputs.size());
    const size_t base = stack.size() - node.outputs.size();
    for (size_t r = 0; r < node.outputs.size(); ++r) {
      values[static_cast<size_t>(node.outputs[r])] = std::move(stack[base + r]).toTensor();
    }
  }
  std::vector<Tensor> outputs;
  for (int v : graph_.outputs()) outputs.push_back(values[static_cast<size_t>(v)]);
  return outputs;
}

std::unique_ptr<StaticModule::Plan> StaticModule::make_plan(const std::vector<Tensor>& values) const {
  auto plan = std::make_unique<Plan>();
  const size_t n = static_cast<size_t>(graph_.num_values());
  plan->device = graph_.inputs().empty() ? Device(DeviceType::CPU) : graph_.type(graph_.inputs()[0]).device;
  plan->slots.assign(n, IValue());
  plan->types.resize(n);
  plan->use_out.assign(nodes_.size(), false);
  std::vector<int64_t> bytes_of_root(n, -1);
  for (size_t v = 0; v < n; ++v) {
    const Tensor& t = values[v];
    if (t.defined()) plan->types[v] = TensorType{t.scalar_type(), t.sizes().vec(), t.device()};
  }
  for (size_t k = 0; k < nodes_.size(); ++k) {
    if (!nodes_[k].out) continue;
    bool ok = true;
    for (int v : graph_.nodes()[k].outputs) {
      const Tensor& t = values[static_cast<size_t>(v)];
      ok = ok && t.defined() && t.is_contiguous() && t.device() == plan->device &&
           aliases_.root_of[static_cast<size_t>(v)] == v && !aliases_.class_is_input[static_cast<size_t>(v)];
    }
    if (!ok) continue;
    plan->use_out[k] = true;
    ++plan->num_out_nodes;
    for (int v : graph_.nodes()[k].outputs) {
      const auto i = static_cast<size_t>(v);
      if (aliases_.class_is_output[i]) {
        plan->output_buffers.push_back(v);
        plan->slots[i] = make_empty_tensor(plan->types[i].sizes, plan->types[i].dtype, plan->device);
      } else {
        bytes_of_root[i] = static_cast<int64_t>(values[i].nbytes());
      }
    }
  }
  plan->managed = managed_buffers(graph_, aliases_, bytes_of_root);
  const std::vector<ManagedBuffer>& managed = plan->managed;
  std::vector<BufferLifetime> lifetimes;
  for (const ManagedBuffer& b : managed) lifetimes.push_back(b.lifetime);
  plan->report = plan_memory(lifetimes, static_cast<int64_t>(kCpuAlignment));
  if (plan->report.plan.arena_bytes > 0) {
    plan->arena = get_allocator(plan->device.type())->allocate(static_cast<size_t>(plan->report.plan.arena_bytes));
  }
  auto* base = static_cast<char*>(plan->arena.get());
  for (size_t i = 0; i < managed.size(); ++i) {
    const auto v = static_cast<size_t>(managed[i].root);
    const TensorType& type = plan->types[v];
    plan->slots[v] = from_blob(base + plan->report.plan.offsets[i], type.sizes,
                               TensorOptions().dtype(type.dtype).device(plan->device));
  }
  for (int v : constant_ids_) plan->slots[static_cast<size_t>(v)] = graph_.constant(v);
  for (size_t v = 0; v < n; ++v) {
    if (plan->slots[v].isNone()) plan->transient.push_back(static_cast<int>(v));
  }
  process_nodes(*plan);
  return plan;
}

void StaticModule::process_nodes(Plan& plan) const {
  size_t num_lists = 0;
  for (const Node& node : graph_.nodes()) {
    for (const NodeArg& arg : node.args) num_lists += arg.kind == NodeArg::Kind::ValueList;
  }
  plan.list_slots.assign(num_lists, IValue());  // sized once: nodes point into it
  size_t next_list = 0;
  auto pointer_to = [&](const NodeArg& arg, ProcessedNode& pn) -> const IValue* {
    switch (arg.kind) {
      case NodeArg::Kind::Value:
        return &plan.slots[static_cast<size_t>(arg.values[0])];
      case NodeArg::Kind::ValueList: {
        IValue* slot = &plan.list_slots[next_list++];
        pn.lists.emplace_back(slot, arg.values);
        return slot;
      }
      case NodeArg::Kind::Constant:
        break;
    }
    return &arg.constant;
  };
  plan.nodes.resize(nodes_.size());
  for (size_t k = 0; k < nodes_.size(); ++k) {
    const Node& node = graph_.nodes()[k];
    const ResolvedNode& rn = nodes_[k];
    ProcessedNode& pn = plan.nodes[k];
    pn.use_out = plan.use_out[k];
    if (pn.use_out) {
      pn.op = &rn.out->op;
      pn.kernel = rn.out_kernel;
      pn.ks = rn.out_ks;
      for (int source : rn.out->argument_sources) {
        pn.args.push_back(source >= 0 ? pointer_to(node.args[static_cast<size_t>(source)], pn)
                                      : &plan.slots[static_cast<size_t>(node.outputs[static_cast<size_t>(-source - 1)])]);
      }
    } else {
      pn.op = &*rn.op;
      pn.kernel = rn.kernel;
      pn.ks = rn.ks;
      for (const NodeArg& arg : node.args) pn.args.push_back(pointer_to(arg, pn));
    }
    for (int v : node.outputs) pn.outputs.push_back(&plan.slots[static_cast<size_t>(v)]);
  }
}

std::vector<Tensor> StaticModule::run_planned(Plan& plan, const std::vector<Tensor>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) plan.slots[static_cast<size_t>(graph_.inputs()[i])] = inputs[i];
  // An output buffer the caller still holds (or a view of it) cannot be written again.
  for (int id : plan.output_buffers) {
    const auto v = static_cast<size_t>(id);
    const Tensor& buffer = plan.slots[v].toTensor();
    if (buffer.use_count() > 1 || buffer.storage().use_count() > 1) {
      plan.slots[v] = make_empty_tensor(plan.types[v].sizes, plan.types[v].dtype, plan.device);
    }
  }
  Stack& results = plan.results;
  for (ProcessedNode& pn : plan.nodes) {
    for (auto& [slot, list] : pn.lists) {
      std::vector<Tensor> tensors;
      tensors.reserve(list.size());
      for (int v : list) tensors.push_back(plan.slots[static_cast<size_t>(v)].toTensor());
      *slot = IValue(std::move(tensors));
    }
    if (pn.kernel->has_array_call()) {
      pn.kernel->callFromArray(pn.ks, pn.args.data(), pn.use_out ? nullptr : &results);
    } else {  // a boxed-only kernel: the same arguments through a stack
      results.clear();
      for (const IValue* arg : pn.args) results.push_back(*arg);
      pn.kernel->callBoxed(*pn.op, pn.ks, &results);
      if (pn.use_out) results.clear();
    }
    if (!pn.use_out) {
      const size_t base = results.size() - pn.outputs.size();
      for (size_t r = 0; r < pn.outputs.size(); ++r) *pn.outputs[r] = std::move(results[base + r]);
      results.clear();
    }
  }
  std::vector<Tensor> outputs;
  outputs.reserve(graph_.outputs().size());
  for (int v : graph_.outputs()) outputs.push_back(plan.slots[static_cast<size_t>(v)].toTensor());
  for (int v : plan.transient) plan.slots[static_cast<size_t>(v)] = IValue();
  for (IValue& list : plan.list_slots) list = IValue();
  return outputs;
}

}  // namespace tg::jit
