#include "nn/module.h"

#include <cxxabi.h>

#include <cstdlib>
#include <ostream>

#include "autograd/grad_mode.h"
#include "nn/module_holder.h"
#include "nn/set_data.h"
#include "tensorgen/ops.h"

namespace tg::nn {
namespace {

std::string demangle(const char* mangled) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return mangled;
  std::string result(demangled);
  std::free(demangled);
  return result;
}

void check_name(const std::string& name, const char* op, const char* kind) {
  TG_CHECK(!name.empty(), "[nn::Module::", op, "] ", kind, " name must not be empty");
  TG_CHECK(name.find('.') == std::string::npos, "[nn::Module::", op, "] ", kind,
           " name must not contain a dot (got '", name, "')");
}

std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}
Module::Module() = default;

const std::string& Module::name() const {
  if (!name_) name_ = demangle(typeid(*this).name());
  return *name_;
}

std::shared_ptr<Module> Module::clone(const std::optional<Device>&) const {
  TG_CHECK(false, "[nn::Module::clone] ", name(), " cannot be cloned: derive it from tg::nn::Cloneable<", name(),
           "> (and define reset()) to make it cloneable");
  return nullptr;
}

void Module::assign_from(Module& other) {
  TG_CHECK(false, "[nn::Module::clone] ", name(), " cannot take the state of ", other.name(), ": it is not Cloneable");
}

namespace detail {
void empty_holder_error(const char* type_name) {
  TG_CHECK(false, "[nn::ModuleHolder] accessing an empty ModuleHolder of ", demangle(type_name),
           ": it was made from nullptr; assign it a module first");
  __builtin_unreachable();
}
}  // namespace detail

std::shared_ptr<Module> Module::shared_from_this_checked(const char* op) const {
  std::shared_ptr<const Module> self = weak_from_this().lock();
  TG_CHECK(self != nullptr, "[nn::Module::", op, "] ", name(),
           " is not owned by a std::shared_ptr: make it with std::make_shared or a module holder");
  return std::const_pointer_cast<Module>(self);
}

void Module::apply(const ModuleApplyFunction& function) {
  function(*this);
  for (auto& child : children_) child.value()->apply(function);
}

void Module::apply(const ConstModuleApplyFunction& function) const {
  function(*this);
  for (const auto& child : children_) static_cast<const Module&>(*child.value()).apply(function);
}

void Module::apply(const NamedModuleApplyFunction& function, const std::string& name_prefix) {
  function(name_prefix, *this);
  apply_to_descendants(function, name_prefix);
}

void Module::apply_to_descendants(const NamedModuleApplyFunction& function, const std::string& name_prefix) {
  for (auto& child : children_) {
    const std::string qualified = join(name_prefix, child.key());
    function(qualified, *child.value());
    child.value()->apply_to_descendants(function, qualified);
  }
}

void Module::apply(const ModulePointerApplyFunction& function) const {
  for (const auto& module : modules(/*include_self=*/true)) function(module);
}

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  OrderedDict<std::string, Tensor> result("Parameter");
  if (!recurse) {
    for (const auto& parameter : parameters_) {
      if (parameter.value().defined()) result.insert(parameter.key(), parameter.value());
    }
    return result;
  }
  const_cast<Module*>(this)->apply([&](const std::string& prefix, Module& module) {
    for (const auto& parameter : module.parameters_) {
      if (parameter.value().defined()) result.insert(join(prefix, parameter.key()), parameter.value());
    }
  });
  return result;
}

std::vector<Tensor> Module::parameters(bool recurse) const { return named_parameters(recurse).values(); }

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  OrderedDict<std::string, Tensor> result("Buffer");
  if (!recurse) {
    for (const auto& buffer : buffers_) {
      if (buffer.value().defined()) result.insert(buffer.key(), buffer.value());
    }
    return result;
  }
  const_cast<Module*>(this)->apply([&](const std::string& prefix, Module& module) {
    for (const auto& buffer : module.buffers_) {
      if (buffer.value().defined()) result.insert(join(prefix, buffer.key()), buffer.value());
    }
  });
  return result;
}

std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  return named_modules(std::string(), include_self).values();
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(const std::string& name_prefix,
                                                                       bool include_self) const {
  OrderedDict<std::string, std::shared_ptr<Module>> result("Module");
  if (include_self) result.insert(name_prefix, shared_from_this_checked("named_modules"));
  const_cast<Module*>(this)->apply_to_descendants(
      [&](const std::string& name, Module& module) {
        result.insert(name, module.shared_from_this_checked("named_modules"));
      },
      name_prefix);
  return result;
}

std::vector<std::shared_ptr<Module>> Module::children() const { return children_.values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const { return children_; }

void Module::train(bool on) {
  for (auto& child : children_) child.value()->train(on);
  is_training_ = on;
}

void Module::convert_tensors(const std::function<Tensor(const Tensor&)>& convert) {
  NoGradGuard no_grad;
  for (auto& child : children_) child.value()->convert_tensors(convert);
  for (auto* table : {&parameters_, &buffers_}) {
    for (auto& item : *table) {
      Tensor& tensor = item.value();
      if (!tensor.defined()) continue;
      // A conversion that changes nothing returns the tensor itself: leave it as it is.
      Tensor converted = convert(tensor);
      if (!converted.is_same(tensor)) detail::set_data(tensor, converted);
      if (!tensor.grad().defined()) continue;
      Tensor converted_grad = convert(tensor.grad());
      if (!converted_grad.is_same(tensor.grad())) detail::set_data(tensor.mutable_grad(), converted_grad);
    }
  }
}

// Module::to(dtype) converts the floating-point parameters and buffers only, as PyTorch's
// Module.to: integer buffers (num_batches_tracked, index tables) keep their dtype, and an
// integral target dtype is refused before anything changes. See docs/porting.md for LibTorch's
// C++ Module::to, which converts every tensor.
void Module::check_to_dtype(ScalarType dtype) const {
  TG_CHECK(is_floating_type(dtype), "[nn::Module::to] expects a floating-point dtype (Float, Double, Half or ",
           "BFloat16) for ", name(), ", got ", dtype, ": only floating-point parameters and buffers are converted");
}

void Module::to(Device device, ScalarType dtype, bool) {
  check_to_dtype(dtype);
  convert_tensors([&](const Tensor& t) { return t.is_floating_point() ? t.to(device, dtype) : t.to(device); });
}

void Module::to(ScalarType dtype, bool) {
  check_to_dtype(dtype);
  convert_tensors([&](const Tensor& t) { return t.is_floating_point() ? t.to(dtype) : t; });
}

void Module::to(Device device, bool) {
  convert_tensors([&](const Tensor& t) { return t.to(device); });
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor& parameter : parameters()) {
    if (!parameter.grad().defined()) continue;
    if (set_to_none) {
      parameter.mutable_grad() = Tensor();
    } else {
      NoGradGuard no_grad;
      parameter.mutable_grad().zero_();
    }
  }
}

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  pretty_print(stream);
  if (children_.is_empty()) return;
  stream << "(\n";
  const std::string next = indentation + "  ";
  for (const auto& child : children_) {
    stream << next << "(" << child.key() << "): ";
    child.value()->pretty_print_recursive(stream, next);
    stream << '\n';
  }
  stream << indentation << ")";
}

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  module.pretty_print_recursive(stream, "");
  return stream;
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_name(name, "register_parameter", "Parameter");
  TG_CHECK(!tensor.defined() || !requires_grad || tensor.is_floating_point(),
           "[nn::Module::register_parameter] parameter '", name,
           "' requires grad, so it must have a floating-point dtype; got ", tensor.defined() ? tensor.dtype() : kFloat);
  if (tensor.defined()) tensor.set_requires_grad(requires_grad);
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  check_name(name, "register_buffer", "Buffer");
  return buffers_.insert(std::move(name), std::move(tensor));
}

void Module::register_module_base(std::string name, std::shared_ptr<Module> module) {
  check_name(name, "register_module", "Submodule");
  TG_CHECK(module != nullptr, "[nn::Module::register_module] submodule '", name, "' is empty (nullptr)");
  children_.insert(std::move(name), std::move(module));
}

void Module::replace_module_base(const std::string& name, std::shared_ptr<Module> module) {
  TG_CHECK(children_.contains(name), "[nn::Module::replace_module] no submodule named '", name, "' in ", this->name());
  TG_CHECK(module != nullptr, "[nn::Module::replace_module] submodule '", name, "' is empty (nullptr)");
  children_[name] = std::move(module);
}

void Module::unregister_module(const std::string& name) {
  TG_CHECK(children_.contains(name), "[nn::Module::unregister_module] no submodule named '", name, "' in ",
           this->name());
  children_.pop(name);
}

}  // namespace tg::nn
