#include "jit/static/static_module.h"

#include "autograd/grad_mode.h"
#include "core/error.h"
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
// tensor argument at construction, and run() calls it directly, boxed.

struct StaticModule::ResolvedNode {
  std::optional<OperatorHandle> op;
  DispatchKeySet ks;
  const KernelFunction* kernel = nullptr;
  std::optional<OutVariant> out;
  DispatchKeySet out_ks;
  const KernelFunction* out_kernel = nullptr;
};

struct StaticModule::Plan {
  PlanReport report;
  std::vector<ManagedBuffer> managed;
  Device device{DeviceType::CPU};
  DataPtr arena;
  std::vector<Tensor> buffers;          // per value: the tensor an out= variant writes, if any
  std::vector<bool> is_output_buffer;   // per value
  std::vector<TensorType> types;        // per value, from the profiling run
  std::vector<bool> use_out;            // per node
  std::vector<Tensor> values;           // scratch for run_planned
  Stack stack;                          // scratch for run_planned
  int64_t num_out_nodes = 0;
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

StaticModule::StaticModule(Graph graph) : graph_(std::move(graph)) {
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
           " inputs, got ", inputs.size());
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

StaticModule::Signature StaticModule::signature_of(const std::vector<Tensor>& inputs) const {
  Signature sig;
  for (const Tensor& t : inputs) {
    sig.push_back(static_cast<int64_t>(t.scalar_type()));
    sig.push_back(static_cast<int64_t>(t.device().type()) * 256 + t.device().index());
    sig.push_back(t.dim());
    for (int64_t s : t.sizes()) sig.push_back(s);
    // Strides matter too: a kernel may take another path for a strided input.
    for (int64_t s : t.strides()) sig.push_back(s);
  }
  return sig;
}

std::vector<Tensor> StaticModule::run(const std::vector<Tensor>& inputs) {
  check_inputs(inputs);
  NoGradGuard no_grad;
  AutoDispatchBelowAutograd below_autograd;
  Signature sig = signature_of(inputs);
  auto it = plans_.find(sig);
  if (it != plans_.end()) {
    last_plan_ = it->second.get();
    return run_planned(*it->second, inputs);
  }
  std::vector<Tensor> values;
  std::vector<Tensor> outputs = run_functional(inputs, values);
  std::unique_ptr<Plan> plan = make_plan(values);
  last_plan_ = plan.get();
  plans_.emplace(std::move(sig), std::move(plan));
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
  plan->buffers.assign(n, Tensor());
  plan->is_output_buffer.assign(n, false);
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
        plan->is_output_buffer[i] = true;
        plan->buffers[i] = make_empty_tensor(plan->types[i].sizes, plan->types[i].dtype, plan->device);
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
    plan->buffers[v] = from_blob(base + plan->report.plan.offsets[i], type.sizes,
                                 TensorOptions().dtype(type.dtype).device(plan->device));
  }
  return plan;
}

std::vector<Tensor> StaticModule::run_planned(Plan& plan, const std::vector<Tensor>& inputs) {
  std::vector<Tensor>& values = plan.values;
  bind_inputs(inputs, values);
  // An output buffer the caller still holds (or a view of it) cannot be written again.
  for (size_t v = 0; v < plan.buffers.size(); ++v) {
    if (plan.is_output_buffer[v] &&
        (plan.buffers[v].use_count() > 1 || plan.buffers[v].storage().use_count() > 1)) {
      plan.buffers[v] = make_empty_tensor(plan.types[v].sizes, plan.types[v].dtype, plan.device);
    }
  }
  Stack& stack = plan.stack;
  for (size_t k = 0; k < nodes_.size(); ++k) {
    const Node& node = graph_.nodes()[k];
    const ResolvedNode& rn = nodes_[k];
    stack.clear();
    if (plan.use_out[k]) {
      for (int source : rn.out->argument_sources) {
        if (source >= 0) {
          push_arg(node.args[static_cast<size_t>(source)], values, stack);
        } else {
          stack.emplace_back(plan.buffers[static_cast<size_t>(node.outputs[static_cast<size_t>(-source - 1)])]);
        }
      }
      rn.out_kernel->callBoxed(rn.out->op, rn.out_ks, &stack);
      for (int v : node.outputs) values[static_cast<size_t>(v)] = plan.buffers[static_cast<size_t>(v)];
    } else {
      for (const NodeArg& arg : node.args) push_arg(arg, values, stack);
      rn.kernel->callBoxed(*rn.op, rn.ks, &stack);
      const size_t base = stack.size() - node.outputs.size();
      for (size_t r = 0; r < node.outputs.size(); ++r) {
        values[static_cast<size_t>(node.outputs[r])] = std::move(stack[base + r]).toTensor();
      }
    }
  }
  std::vector<Tensor> outputs;
  for (int v : graph_.outputs()) outputs.push_back(values[static_cast<size_t>(v)]);
  stack.clear();
  for (Tensor& t : values) t = Tensor();
  return outputs;
}

}  // namespace tg::jit
