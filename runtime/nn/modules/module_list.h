// ModuleList and ModuleDict: containers that register their modules (so parameters() sees
// them) without defining forward, as LibTorch's. ModuleList names its children "0", "1", ...;
// ModuleDict by their keys. Invariant: modules_ holds exactly children_'s values, in order.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "nn/modules/module_pointer.h"

namespace tg::nn {

class ModuleListImpl : public Module {
 public:
  ModuleListImpl() = default;
  template <typename... Modules>
    requires(sizeof...(Modules) > 0 && (!std::is_same_v<std::decay_t<Modules>, ModuleListImpl> && ...))
  explicit ModuleListImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }

  template <typename M>
  void push_back(M&& module) {
    push_back_pointer(detail::module_pointer(std::forward<M>(module)));
  }
  void push_back_pointer(std::shared_ptr<Module> module);
  // Inserts before `index` (0 <= index <= size()); later children are renamed.
  template <typename M>
  void insert(size_t index, M&& module) {
    insert_pointer(index, detail::module_pointer(std::forward<M>(module)));
  }
  void insert_pointer(size_t index, std::shared_ptr<Module> module);
  void extend(const ModuleListImpl& other);

  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  std::shared_ptr<Module> ptr(size_t index) const;
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const {
    return std::dynamic_pointer_cast<T>(ptr(index));
  }
  template <typename T>
  T& at(size_t index) {
    auto* module = dynamic_cast<T*>(ptr(index).get());
    TG_CHECK(module != nullptr, "[nn::ModuleList::at] element ", index, " is a ", ptr(index)->name(),
             ", not the type asked for");
    return *module;
  }
  std::vector<std::shared_ptr<Module>>::const_iterator begin() const { return modules_.begin(); }
  std::vector<std::shared_ptr<Module>>::const_iterator end() const { return modules_.end(); }

  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override { stream << "tg::nn::ModuleList"; }

 private:
  void assign_from(Module& other) override;
  std::vector<std::shared_ptr<Module>> modules_;
};
TG_MODULE(ModuleList);

class ModuleDictImpl : public Module {
 public:
  ModuleDictImpl() = default;
  explicit ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);
  explicit ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules);

  template <typename M>
  void insert(std::string key, M&& module) {
    insert_pointer(std::move(key), detail::module_pointer(std::forward<M>(module)));
  }
  void insert_pointer(std::string key, std::shared_ptr<Module> module);
  // Inserts every entry, replacing the modules of keys already present.
  void update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);
  std::shared_ptr<Module> pop(const std::string& key);
  void clear();

  size_t size() const noexcept { return children_.size(); }
  bool is_empty() const noexcept { return children_.is_empty(); }
  bool contains(const std::string& key) const noexcept { return children_.contains(key); }
  std::vector<std::string> keys() const { return children_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return children_.values(); }
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> items() const { return children_.pairs(); }
  std::shared_ptr<Module> operator[](const std::string& key) const;
  template <typename T>
  T& at(const std::string& key) {
    auto* module = dynamic_cast<T*>((*this)[key].get());
    TG_CHECK(module != nullptr, "[nn::ModuleDict::at] '", key, "' is a ", (*this)[key]->name(),
             ", not the type asked for");
    return *module;
  }
  auto begin() const { return children_.begin(); }
  auto end() const { return children_.end(); }

  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override { stream << "tg::nn::ModuleDict"; }

 private:
  void assign_from(Module& other) override;
};
TG_MODULE(ModuleDict);

}  // namespace tg::nn
