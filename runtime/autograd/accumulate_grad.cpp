#include "autograd/accumulate_grad.h"

#include "autograd/autograd_meta.h"
#include "autograd/grad_mode.h"
#include "tensorgen/ops.h"

namespace tg::autograd {

namespace {

// Whether `grad` may become the leaf's .grad() without a copy: nobody else can see it (the
// only reference to its TensorImpl and to its storage, so not a view of a bigger buffer),
// and it has the leaf's shape and a plain contiguous layout. Only when no graph is being
// recorded, since a stolen gradient carries no history.
bool can_steal(const Tensor& grad, const Tensor& variable) {
  return !GradMode::is_enabled() && grad.use_count() == 1 && grad.storage().use_count() == 1 &&
         grad.is_contiguous() && grad.sizes() == variable.sizes();
}

}  // namespace

AccumulateGrad::AccumulateGrad(Tensor variable)
    : Node(std::numeric_limits<uint64_t>::max(), {}), variable_(std::move(variable)) {
  add_input_metadata(variable_);
}

variable_list AccumulateGrad::call_tensor_pre_hooks(variable_list grads) {
  grads = Node::call_tensor_pre_hooks(std::move(grads));
  AutogradMeta* meta = impl::get_autograd_meta(variable_);
  if (meta != nullptr && meta->hooks_ != nullptr && !grads.empty()) {
    grads[0] = run_tensor_hooks(*meta->hooks_, std::move(grads[0]));
  }
  return grads;
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  TG_INTERNAL_ASSERT(grads.size() == 1, "AccumulateGrad expects one gradient, got ", grads.size());
  Tensor incoming = std::move(grads[0]);
  grads.clear();
  if (!incoming.defined() || !variable_.requires_grad()) return {};

  AutogradMeta* meta = impl::get_autograd_meta(variable_);
  std::lock_guard<std::mutex> lock(meta->mutex_);
  Tensor& grad = meta->grad_;
  if (!grad.defined()) {
    if (can_steal(incoming, variable_)) {
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
