#include "autograd/node.h"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/device_guard_impl.h"
#include "core/error.h"

namespace tg::autograd {

namespace {
thread_local uint64_t sequence_nr_counter __attribute__((tls_model("initial-exec"))) = 0;

void check_hook_result(const Tensor& grad, const Tensor& result, unsigned id) {
  TG_CHECK(result.sizes() == grad.sizes(), "[register_hook] hook ", id, " changed the shape of the gradient from ",
           grad.sizes(), " to ", result.sizes());
  TG_CHECK(result.scalar_type() == grad.scalar_type(), "[register_hook] hook ", id,
           " changed the dtype of the gradient from ", grad.scalar_type(), " to ", result.scalar_type());
  TG_CHECK(result.device() == grad.device(), "[register_hook] hook ", id, " changed the device of the gradient from ",
           grad.device(), " to ", result.device());
}
}  // namespace

uint64_t next_sequence_nr() { return sequence_nr_counter++; }

// Note [Iterative graph deletion]
// A node owns the nodes its next edges point at (shared_ptr), so dropping the last tensor of
// a chain of N nodes would run N nested destructors and overflow the stack for long chains
// (y = y * 1.0 a million times). As PyTorch's deleteNode does, the destructor instead moves
// its next edges to a local stack; each node popped whose only owner is that stack gives its
// own next edges to the stack before it is released, so it dies with no edges and its
// destructor does not recurse. A node owned elsewhere too just loses one reference. The
// tensors a node saves are released (by the derived destructor) before this runs; those
// that carry history point at nodes that are also next edges, so they are not the last
// owners either.
Node::~Node() {
  if (next_edges_.empty()) return;
  // A long chain of nodes, each the last owner of the next, is freed through this stack rather
  // than by recursion. Only a next node that this one owns alone and that has next nodes of its
  // own goes on it: the others (shared nodes, AccumulateGrad leaves) are released in place, so
  // destroying an ordinary node allocates nothing.
  std::vector<std::shared_ptr<Node>> stack;
  const auto take_edges = [&stack](edge_list& edges) {
    for (Edge& edge : edges) {
      if (edge.function && edge.function.use_count() == 1 && !edge.function->next_edges_.empty()) {
        stack.push_back(std::move(edge.function));
      }
    }
    edges.clear();
  };
  take_edges(next_edges_);
  while (!stack.empty()) {
    std::shared_ptr<Node> node = std::move(stack.back());
    stack.pop_back();
    if (node.use_count() == 1) take_edges(node->next_edges_);
  }
}

Node::Extras& Node::extras() {
  if (extras_ == nullptr) extras_ = std::make_unique<Extras>();
  return *extras_;
}

void Node::record_anomaly_metadata() {
  extras().anomaly_metadata = std::make_unique<AnomalyMetadata>(AnomalyMetadata{current_backtrace(3)});
}

Tensor run_tensor_hooks(const TensorHookList& hooks, Tensor grad) {
  if (!grad.defined()) return grad;
  for (const auto& [id, hook] : hooks.hooks) {
    Tensor result = hook(grad);
    if (!result.defined()) continue;
    check_hook_result(grad, result, id);
    grad = std::move(result);
  }
  return grad;
}

variable_list Node::operator()(variable_list&& grads) {
  if (extras_ == nullptr) return apply(std::move(grads));
  for (const PreHook& hook : extras_->pre_hooks) grads = hook(grads);
  if (extras_->post_hooks.empty()) return apply(std::move(grads));
  variable_list inputs = grads;
  variable_list outputs = apply(std::move(grads));
  for (const PostHook& hook : extras_->post_hooks) outputs = hook(outputs, inputs);
  return outputs;
}

namespace {
// Out of line, as the common case (the CPU, a node's first input) needs neither.
[[gnu::noinline]] void record_stream(InputMetadata& metadata) {
  if (const DeviceGuardImpl* impl = device_guard_impl(metadata.device.type())) {
    const Stream::Id id = impl->current_stream(metadata.device).id();
    TG_INTERNAL_ASSERT(id >= 0 && id <= INT32_MAX, "stream id ", id, " does not fit InputMetadata");
    metadata.stream_id = static_cast<int32_t>(id);
  }
}

[[gnu::noinline]] InputMetadata& append_slot(std::vector<InputMetadata>& more) { return more.emplace_back(); }
}  // namespace

InputMetadata& Node::next_input_metadata_slot() {
  ++num_inputs_;
  if (num_inputs_ == 1) return first_input_metadata_;
  return append_slot(more_input_metadata_);
}

const InputMetadata& Node::later_input_metadata(size_t i) const {
  if (i >= num_inputs_) {
    throw std::out_of_range("Node::input_metadata: index " + std::to_string(i) + " of " + std::to_string(num_inputs_));
  }
  return i == 0 ? first_input_metadata_ : more_input_metadata_[i - 1];
}

uint32_t Node::add_input_metadata(const Tensor& t) {
  if (!t.defined()) return add_undefined_input_metadata();
  // Field by field into the fresh slot: a temporary InputMetadata would be built and then
  // copied (DimVector has no move), twice the work for the same result.
  InputMetadata& metadata = next_input_metadata_slot();
  metadata.sizes = t.sizes();
  metadata.dtype = t.scalar_type();
  metadata.device = t.device();
  metadata.stream_id = -1;
  if (!metadata.device.is_cpu()) record_stream(metadata);
  return num_inputs_ - 1;
}

uint32_t Node::add_undefined_input_metadata() {
  next_input_metadata_slot() = InputMetadata{};
  return num_inputs_ - 1;
}

void Node::add_tensor_pre_hook(uint32_t output_nr, std::shared_ptr<TensorHookList> hooks) {
  extras().tensor_pre_hooks.emplace_back(output_nr, std::move(hooks));
}

void Node::set_retains_grad_hook(uint32_t output_nr, RetainsGradHook hook) {
  std::vector<std::pair<uint32_t, RetainsGradHook>>& retains_grad_hooks = extras().retains_grad_hooks;
  for (auto& [nr, existing] : retains_grad_hooks) {
    if (nr == output_nr) {
      existing = std::move(hook);
      return;
    }
  }
  retains_grad_hooks.emplace_back(output_nr, std::move(hook));
}

Node::RetainsGradHook Node::pop_retains_grad_hook(uint32_t output_nr) {
  if (extras_ == nullptr) return {};
  std::vector<std::pair<uint32_t, RetainsGradHook>>& retains_grad_hooks = extras_->retains_grad_hooks;
  for (auto it = retains_grad_hooks.begin(); it != retains_grad_hooks.end(); ++it) {
    if (it->first == output_nr) {
      RetainsGradHook hook = std::move(it->second);
      retains_grad_hooks.erase(it);
      return hook;
    }
  }
  return {};
}

variable_list Node::call_tensor_pre_hooks(variable_list grads) {
  if (extras_ == nullptr) return grads;
  for (const auto& [output_nr, hooks] : extras_->tensor_pre_hooks) {
    if (output_nr < grads.size()) grads[output_nr] = run_tensor_hooks(*hooks, std::move(grads[output_nr]));
  }
  for (const auto& [output_nr, hook] : extras_->retains_grad_hooks) {
    if (output_nr < grads.size() && grads[output_nr].defined()) hook(grads[output_nr]);
  }
  return grads;
}

}  // namespace tg::autograd
