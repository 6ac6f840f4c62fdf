// tg::nn::Module: the base of every layer and model, as LibTorch's torch::nn::Module.
// A module owns named parameters and buffers and named child modules; recursive queries
// (named_parameters(), named_buffers(), modules()) walk children depth-first in registration
// order and name things by their dotted path ("encoder.0.weight"). Invariant: names registered
// on one module are unique per kind and contain no '.'; undefined tensors are registered (a
// Linear without bias) but never returned by the queries.
//
// Threading: a module is not synchronised; use one from one thread at a time (as LibTorch).
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/scalar_type.h"
#include "core/tensor.h"
#include "nn/ordered_dict.h"

namespace tg::nn {

template <typename Contained>
class ModuleHolder;

class Module : public std::enable_shared_from_this<Module> {
 public:
  using ModuleApplyFunction = std::function<void(Module&)>;
  using ConstModuleApplyFunction = std::function<void(const Module&)>;
  using NamedModuleApplyFunction = std::function<void(const std::string&, Module&)>;
  using ModulePointerApplyFunction = std::function<void(const std::shared_ptr<Module>&)>;

  // `name` is what printing shows; by default the demangled dynamic type name ("NetImpl").
  explicit Module(std::string name);
  Module();
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;
  Module(Module&&) noexcept = default;
  Module& operator=(Module&&) noexcept = default;
  virtual ~Module() = default;

  const std::string& name() const;

  // A deep copy (parameters and buffers copied, optionally onto `device`). Only modules that
  // derive from Cloneable<T> (all built-in ones) can be cloned; others raise tg::Error.
  virtual std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const;

  // Calls `function` on this module and every descendant, parents first.
  void apply(const ModuleApplyFunction& function);
  void apply(const ConstModuleApplyFunction& function) const;
  void apply(const NamedModuleApplyFunction& function, const std::string& name_prefix = std::string());
  void apply(const ModulePointerApplyFunction& function) const;

  std::vector<Tensor> parameters(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;

  // This module (when include_self) and every descendant, depth-first.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(const std::string& name_prefix = std::string(),
                                                                  bool include_self = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;

  virtual void train(bool on = true);
  void eval() { train(false); }
  virtual bool is_training() const noexcept { return is_training_; }

  // Moves every parameter and buffer (and their gradients), recursively and in place: the
  // tensors a subclass keeps as members, and an optimizer made earlier, see the change.
  // to(dtype) converts the floating-point tensors only (integer buffers keep their dtype) and
  // refuses an integral dtype with tg::Error before changing anything (docs/porting.md).
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false);
  virtual void to(ScalarType dtype, bool non_blocking = false);
  virtual void to(Device device, bool non_blocking = false);

  // Resets every parameter's gradient: to undefined (set_to_none), or to zeros.
  virtual void zero_grad(bool set_to_none = true);

  // Prints this module alone (one line); operator<< adds the children, indented.
  virtual void pretty_print(std::ostream& stream) const;

  // The module as its concrete type, or nullptr: model->as<Linear>() or as<LinearImpl>().
  template <typename ModuleType>
  typename ModuleType::ContainedType* as() noexcept {
    return dynamic_cast<typename ModuleType::ContainedType*>(this);
  }
  template <typename ModuleType>
  const typename ModuleType::ContainedType* as() const noexcept {
    return dynamic_cast<const typename ModuleType::ContainedType*>(this);
  }
  template <typename ModuleType, typename = std::enable_if_t<std::is_base_of_v<Module, ModuleType>>>
  ModuleType* as() noexcept {
    return dynamic_cast<ModuleType*>(this);
  }

  // Registers a parameter (its requires_grad set to `requires_grad`) and returns the stored
  // handle, which aliases `tensor`.
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  Tensor& register_buffer(std::string name, Tensor tensor);

  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, std::shared_ptr<ModuleType> module) {
    register_module_base(std::move(name), module);
    return module;
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, ModuleHolder<ModuleType> module_holder) {
    return register_module(std::move(name), module_holder.ptr());
  }
  // Replaces an existing child; the caller updates any member that held the old one.
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, std::shared_ptr<ModuleType> module) {
    replace_module_base(name, module);
    return module;
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name, ModuleHolder<ModuleType> module_holder) {
    return replace_module(name, module_holder.ptr());
  }
  void unregister_module(const std::string& name);

 protected:
  // For Cloneable: the tables, to rebuild them in a copy.
  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};

  template <typename Derived>
  friend class Cloneable;

 private:
  // Cloneable's: takes over `other`'s state (same dynamic type) in place.
  virtual void assign_from(Module& other);
  void register_module_base(std::string name, std::shared_ptr<Module> module);
  void replace_module_base(const std::string& name, std::shared_ptr<Module> module);
  void apply_to_descendants(const NamedModuleApplyFunction& function, const std::string& name_prefix);
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;
  // Overwrites the contents of every tensor with `convert(tensor)`, keeping its identity.
  void convert_tensors(const std::function<Tensor(const Tensor&)>& convert);
  std::shared_ptr<Module> shared_from_this_checked(const char* op) const;
  void check_to_dtype(ScalarType dtype) const;

  mutable std::optional<std::string> name_;
  bool is_training_ = true;

  friend std::ostream& operator<<(std::ostream& stream, const Module& module);
};

// Prints the module and its children, as LibTorch: "Net(\n  (fc): tg::nn::Linear(...)\n)".
std::ostream& operator<<(std::ostream& stream, const Module& module);

}  // namespace tg::nn
