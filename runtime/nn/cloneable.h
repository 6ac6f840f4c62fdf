// Cloneable<Derived>: the base that gives a module a deep clone(), as LibTorch's
// torch::nn::Cloneable. Derived implements reset(), which (re)creates and registers every
// parameter, buffer and submodule; the constructor calls it. A clone is made by copying the
// object, emptying its tables, calling reset() and copying each tensor's values (so shapes
// must match what reset() makes), then cloning the children the same way.
#pragma once

#include <memory>
#include <optional>

#include "autograd/grad_mode.h"
#include "nn/module.h"
#include "nn/set_data.h"
#include "tensorgen/ops.h"

namespace tg::nn {

template <typename Derived>
class Cloneable : public Module {
 public:
  using Module::Module;

  // Creates and registers the module's state; called by the constructor and by clone().
  virtual void reset() = 0;

  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    NoGradGuard no_grad;
    const auto& self = static_cast<const Derived&>(*this);
    auto copy = std::make_shared<Derived>(self);
    copy->parameters_.clear();
    copy->buffers_.clear();
    copy->children_.clear();
    copy->reset();
    TG_CHECK(copy->parameters_.size() == parameters_.size() && copy->buffers_.size() == buffers_.size() &&
                 copy->children_.size() == children_.size(),
             "[nn::Module::clone] ", name(), "::reset() registered ", copy->parameters_.size(), " parameters, ",
             copy->buffers_.size(), " buffers and ", copy->children_.size(), " submodules, but the original has ",
             parameters_.size(), ", ", buffers_.size(), " and ", children_.size(),
             ": reset() must register everything the constructor does");
    copy_tensors(parameters_, copy->parameters_, device);
    copy_tensors(buffers_, copy->buffers_, device);
    for (const auto& child : children_) {
      // The copy's child (made by reset()) takes the state of a clone of ours, in place, so
      // that the copy's members that hold it stay valid.
      std::shared_ptr<Module> cloned = child.value()->clone(device);
      copy->children_[child.key()]->assign_from(*cloned);
    }
    return copy;
  }

 private:
  static void copy_tensors(const OrderedDict<std::string, Tensor>& from, OrderedDict<std::string, Tensor>& to,
                           const std::optional<Device>& device) {
    for (const auto& item : from) {
      Tensor* target = to.find(item.key());
      TG_CHECK(target != nullptr, "[nn::Module::clone] reset() did not register '", item.key(), "'");
      if (!item.value().defined()) continue;
      Tensor data = item.value().detach().clone();
      if (device) data = data.to(*device);
      if (!target->defined()) {
        *target = data.set_requires_grad(item.value().requires_grad());
      } else {
        detail::set_data(*target, data);
      }
    }
  }

  void assign_from(Module& other) override {
    auto* source = dynamic_cast<Derived*>(&other);
    TG_CHECK(source != nullptr, "[nn::Module::clone] cannot assign a ", other.name(), " to a ", name());
    static_cast<Derived&>(*this) = std::move(*source);
  }
};

}  // namespace tg::nn
