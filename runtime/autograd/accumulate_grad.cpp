#include "autograd/accumulate_grad.h"

#include <limits>

#include "autograd/autograd_meta.h"
#include "autograd/grad_mode.h"
#include "core/device_guard_impl.h"
#include "tensorgen/ops.h"

namespace tg::autograd {

namespace {

// Whether `grad` may become the leaf's .grad() without a copy: nobody else can see it (the
// only reference to its TensorImpl and to its storage, so not a view of a bigger buffer),
// and it has the leaf's shape and a plain contiguous layout. Only when no graph is being
// recorded, since a stolen gradient carries no history.
bool can_steal(const Tensor& grad, const Tensor& leaf) {
  return !GradMode::is_enabled() && grad.use_count() == 1 && grad.storage().use_count() == 1 &&
         grad.is_contiguous() && grad.sizes() == leaf.sizes();
}

}  // namespace

AccumulateGrad::AccumulateGrad(const Tensor& leaf)
    : Node(std::numeric_limits<uint64_t>::max(), {}), leaf_(leaf.unsafeGetTensorImpl()) {
  add_input_metadata(leaf);
}

Tensor AccumulateGrad::variable() const {
  std::lock_guard<std::mutex> lock(leaf_mutex_);
  if (held_leaf_.defined()) return held_leaf_;
  // A leaf whose count already reached zero is being freed: it is about to call leaf_freed.
  if (leaf_ == nullptr || !leaf_->try_retain()) return Tensor();
  return Tensor(IntrusivePtr<TensorImpl>::reclaim(leaf_));
}

bool AccumulateGrad::stream_is_current() const {
  const InputMetadata& recorded = input_metadata(0);
  const DeviceGuardImpl* guard = device_guard_impl(recorded.device.type());
  return guard == nullptr || guard->current_stream(recorded.device).id() == recorded.stream_id;
}

void AccumulateGrad::leaf_freed(std::shared_ptr<TensorHookList> hooks) {
  std::lock_guard<std::mutex> lock(leaf_mutex_);
  leaf_ = nullptr;
  freed_leaf_hooks_ = std::move(hooks);
}

void AccumulateGrad::hold_leaf(Tensor leaf) {
  std::lock_guard<std::mutex> lock(leaf_mutex_);
  held_leaf_ = std::move(leaf);
}

variable_list AccumulateGrad::call_tensor_pre_hooks(variable_list grads) {
  grads = Node::call_tensor_pre_hooks(std::move(grads));
  if (grads.empty()) return grads;
  const Tensor leaf = variable();
  std::shared_ptr<TensorHookList> hooks;
  if (leaf.defined()) {
    if (AutogradMeta* meta = impl::get_autograd_meta(leaf)) hooks = meta->hooks_;
  } else {
    std::lock_guard<std::mutex> lock(leaf_mutex_);
    hooks = freed_leaf_hooks_;
  }
  if (hooks != nullptr) grads[0] = run_tensor_hooks(*hooks, std::move(grads[0]));
  return grads;
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  TG_INTERNAL_ASSERT(grads.size() == 1, "AccumulateGrad expects one gradient, got ", grads.size());
  Tensor incoming = std::move(grads[0]);
  grads.clear();
  // A freed leaf's gradient has nobody to see it (its hooks ran in call_tensor_pre_hooks).
  const Tensor leaf = variable();
  if (!incoming.defined() || !leaf.defined() || !leaf.requires_grad()) return {};

  AutogradMeta* meta = impl::get_autograd_meta(leaf);
  std::lock_guard<std::mutex> lock(meta->mutex_);
  Tensor& grad = meta->grad_;
  if (!grad.defined()) {
    if (can_steal(incoming, leaf)) {
      // A gradient that requires grad (passed in by the user) loses its history here.
      grad = incoming.requires_grad() ? impl::alias_without_history(incoming) : std::move(incoming);
    } else {
      // With create_graph (grad mode on) the copy records its history, so .grad() can be
      // differentiated again; otherwise it is a plain copy.
      grad = incoming.clone();
    }
  } else if (!GradMode::is_enabled()) {
    grad.add_(incoming);
  } else {
    grad = tg::add(grad, incoming);
  }
  return {};
}

}  // namespace tg::autograd
