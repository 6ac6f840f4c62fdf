#include "autograd/node.h"

#include <cstdint>

#include "core/device_guard_impl.h"
#include "core/error.h"

namespace tg::autograd {

namespace {
thread_local uint64_t sequence_nr_counter = 0;

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
  for (const PreHook& hook : pre_hooks_) grads = hook(grads);
  if (post_hooks_.empty()) return apply(std::move(grads));
  variable_list inputs = grads;
  variable_list outputs = apply(std::move(grads));
  for (const PostHook& hook : post_hooks_) outputs = hook(outputs, inputs);
  return outputs;
}

uint32_t Node::add_input_metadata(const Tensor& t) {
  if (!t.defined()) return add_undefined_input_metadata();
  InputMetadata& metadata = input_metadata_.emplace_back(InputMetadata{DimVector(t.sizes()), t.scalar_type(), t.device()});
  if (!metadata.device.is_cpu()) {
    if (const DeviceGuardImpl* impl = device_guard_impl(metadata.device.type())) {
      const Stream::Id id = impl->current_stream(metadata.device).id();
      TG_INTERNAL_ASSERT(id >= 0 && id <= INT32_MAX, "stream id ", id, " does not fit InputMetadata");
      metadata.stream_id = static_cast<int32_t>(id);
    }
  }
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

uint32_t Node::add_undefined_input_metadata() {
  input_metadata_.push_back(InputMetadata{});
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

void Node::add_tensor_pre_hook(uint32_t output_nr, std::shared_ptr<TensorHookList> hooks) {
  tensor_pre_hooks_.emplace_back(output_nr, std::move(hooks));
}

void Node::set_retains_grad_hook(uint32_t output_nr, RetainsGradHook hook) {
  for (auto& [nr, existing] : retains_grad_hooks_) {
    if (nr == output_nr) {
      existing = std::move(hook);
      return;
    }
  }
  retains_grad_hooks_.emplace_back(output_nr, std::move(hook));
}

Node::RetainsGradHook Node::pop_retains_grad_hook(uint32_t output_nr) {
  for (auto it = retains_grad_hooks_.begin(); it != retains_grad_hooks_.end(); ++it) {
    if (it->first == output_nr) {
      RetainsGradHook hook = std::move(it->second);
      retains_grad_hooks_.erase(it);
      return hook;
    }
  }
  return {};
}

variable_list Node::call_tensor_pre_hooks(variable_list grads) {
  for (const auto& [output_nr, hooks] : tensor_pre_hooks_) {
    if (output_nr < grads.size()) grads[output_nr] = run_tensor_hooks(*hooks, std::move(grads[output_nr]));
  }
  for (const auto& [output_nr, hook] : retains_grad_hooks_) {
    if (output_nr < grads.size() && grads[output_nr].defined()) hook(grads[output_nr]);
  }
  return grads;
}

}  // namespace tg::autograd
