// The autograd methods of tg::Tensor (declared in the generated TensorBody.h).
#include "autograd/autograd.h"
#include "autograd/autograd_meta.h"
#include "core/tensor.h"
#include "tensorgen/ops.h"

namespace tg {

using autograd::AutogradMeta;
namespace impl = autograd::impl;

namespace {
const Tensor& undefined_tensor() {
  static const Tensor kUndefined;
  return kUndefined;
}
}  // namespace

bool Tensor::requires_grad() const {
  const AutogradMeta* meta = impl::get_autograd_meta(*this);
  return meta != nullptr && meta->requires_grad();
}

const Tensor& Tensor::requires_grad_(bool requires_grad) const {
  if (!is_leaf()) {
    TG_CHECK(requires_grad,
             "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
             "subgraph that doesn't require differentiation use var_no_grad = var.detach().");
    return *this;
  }
  TG_CHECK(!requires_grad || is_floating_point(), "only Tensors of floating point dtype can require gradients");
  if (!requires_grad && impl::get_autograd_meta(*this) == nullptr) return *this;
  impl::materialize_autograd_meta(*this)->requires_grad_ = requires_grad;
  // See Note [Autograd key on demand].
  if (requires_grad) {
    unsafeGetTensorImpl()->add_key(DispatchKey::Autograd);
  } else {
    unsafeGetTensorImpl()->remove_key(DispatchKey::Autograd);
  }
  return *this;
}

const Tensor& Tensor::grad() const {
  const AutogradMeta* meta = impl::get_autograd_meta(*this);
  // A non-leaf has a .grad() only when it retains it (PyTorch warns and returns None).
  if (meta == nullptr || (!is_leaf() && !meta->retains_grad_)) return undefined_tensor();
  return meta->grad_;
}

Tensor& Tensor::mutable_grad() const { return impl::materialize_autograd_meta(*this)->grad_; }

const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const { return impl::grad_fn(*this); }

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

uint32_t Tensor::output_nr() const {
  const AutogradMeta* meta = impl::get_autograd_meta(*this);
  return meta != nullptr ? meta->output_nr_ : 0;
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                      std::optional<TensorList> inputs) const {
  TG_CHECK(!inputs.has_value() || !inputs->empty(), "'inputs' argument to backward() cannot be empty.");
  autograd::variable_list input_list;
  if (inputs.has_value()) input_list.assign(inputs->begin(), inputs->end());
  autograd::backward({*this}, {gradient}, retain_graph, create_graph, input_list);
}

Tensor Tensor::detach() const { return impl::alias_without_history(*this); }

const Tensor& Tensor::detach_() const {
  AutogradMeta* meta = impl::get_autograd_meta(*this);
  if (meta == nullptr) return *this;
  TG_CHECK(meta->view_ == nullptr, "Can't detach views in-place. Use detach() instead.");
  meta->requires_grad_ = false;
  meta->grad_fn_.reset();
  meta->output_nr_ = 0;
  unsafeGetTensorImpl()->remove_key(DispatchKey::Autograd);
  return *this;
}

void Tensor::retain_grad() const {
  TG_CHECK(requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf()) return;  // a leaf accumulates into .grad() anyway
  AutogradMeta* meta = impl::get_autograd_meta(*this);
  if (meta->retains_grad_) return;
  meta->retained_grad_slot_ = std::make_shared<autograd::RetainedGradSlot>();
  meta->retained_grad_slot_->meta = meta;
  std::weak_ptr<autograd::RetainedGradSlot> weak_slot = meta->retained_grad_slot_;
  grad_fn()->set_retains_grad_hook(output_nr(), [weak_slot](const Tensor& grad) {
    std::shared_ptr<autograd::RetainedGradSlot> slot = weak_slot.lock();
    if (slot == nullptr) return;
    std::lock_guard<std::mutex> lock(slot->mutex);
    if (slot->meta == nullptr) return;  // the tensor is gone
    Tensor& retained = slot->meta->grad_;
    retained = retained.defined() ? tg::add(retained, grad) : grad.clone();
  });
  meta->retains_grad_ = true;
}

bool Tensor::retains_grad() const {
  const AutogradMeta* meta = impl::get_autograd_meta(*this);
  return meta != nullptr && meta->retains_grad_;
}

unsigned Tensor::_register_hook(std::function<Tensor(const Tensor&)> hook) const {
  TG_CHECK(requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta* meta = impl::get_autograd_meta(*this);
  if (meta->hooks_ == nullptr) {
    meta->hooks_ = std::make_shared<autograd::TensorHookList>();
    // A non-leaf's hooks run on its grad_fn; a leaf's AccumulateGrad reads them from the
    // leaf (Note [Tensor hooks]).
    if (const std::shared_ptr<autograd::Node>& fn = grad_fn()) fn->add_tensor_pre_hook(output_nr(), meta->hooks_);
  }
  const unsigned id = meta->next_hook_id_++;
  meta->hooks_->hooks.emplace_back(id, std::move(hook));
  return id;
}

void Tensor::remove_hook(unsigned id) const {
  AutogradMeta* meta = impl::get_autograd_meta(*this);
  if (meta != nullptr && meta->hooks_ != nullptr) {
    auto& hooks = meta->hooks_->hooks;
    for (auto it = hooks.begin(); it != hooks.end(); ++it) {
      if (it->first == id) {
        hooks.erase(it);
        return;
      }
    }
  }
  TG_ERROR("[remove_hook] no hook with id ", id, " on this tensor (hooks registered before an in-place operation ",
           "stay with the tensor's previous grad_fn)");
}

bool Tensor::is_view() const {
  if (defined() && unsafeGetTensorImpl()->view_base() != nullptr) impl::adopt_untracked_view(*this);
  const AutogradMeta* meta = impl::get_autograd_meta(*this);
  return meta != nullptr && meta->view_ != nullptr;
}

const Tensor& Tensor::_base() const {
  TG_CHECK(is_view(), "Can't get base of non-view Tensor");
  return impl::get_autograd_meta(*this)->view_->base;
}

}  // namespace tg
