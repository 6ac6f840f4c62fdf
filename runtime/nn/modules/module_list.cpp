#include "nn/modules/module_list.h"

namespace tg::nn {

void ModuleListImpl::push_back_pointer(std::shared_ptr<Module> module) {
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

void ModuleListImpl::insert_pointer(size_t index, std::shared_ptr<Module> module) {
  TG_CHECK_INDEX(index <= modules_.size(), "[nn::ModuleList::insert] index ", index,
                 " is out of range for a ModuleList of ", modules_.size(), " modules");
  TG_CHECK(module != nullptr, "[nn::ModuleList::insert] the module is empty (nullptr)");
  std::vector<std::shared_ptr<Module>> modules = modules_;
  modules.insert(modules.begin() + static_cast<std::ptrdiff_t>(index), std::move(module));
  for (size_t i = 0; i < modules_.size(); ++i) unregister_module(std::to_string(i));
  modules_.clear();
  for (auto& m : modules) push_back_pointer(m);
}

void ModuleListImpl::extend(const ModuleListImpl& other) {
  for (const auto& module : other.modules_) push_back_pointer(module);
}

std::shared_ptr<Module> ModuleListImpl::ptr(size_t index) const {
  TG_CHECK_INDEX(index < modules_.size(), "[nn::ModuleList] index ", index, " is out of range for a ModuleList of ",
                 modules_.size(), " modules");
  return modules_[index];
}

std::shared_ptr<Module> ModuleListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleListImpl>();
  for (const auto& module : modules_) copy->push_back_pointer(module->clone(device));
  copy->train(is_training());
  return copy;
}

void ModuleListImpl::assign_from(Module& other) {
  auto* source = dynamic_cast<ModuleListImpl*>(&other);
  TG_CHECK(source != nullptr, "[nn::Module::clone] cannot assign a ", other.name(), " to a ModuleList");
  *this = std::move(*source);
}

ModuleDictImpl::ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
  update(modules);
}

ModuleDictImpl::ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules) {
  update(modules.pairs());
}

void ModuleDictImpl::insert_pointer(std::string key, std::shared_ptr<Module> module) {
  TG_CHECK(!children_.contains(key), "[nn::ModuleDict::insert] key '", key, "' is already in the ModuleDict");
  register_module(std::move(key), std::move(module));
}

void ModuleDictImpl::update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
  for (const auto& [key, module] : modules) {
    if (children_.contains(key)) {
      replace_module(key, module);
    } else {
      register_module(key, module);
    }
  }
}

std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  std::shared_ptr<Module> module = (*this)[key];
  unregister_module(key);
  return module;
}

void ModuleDictImpl::clear() {
  for (const std::string& key : keys()) unregister_module(key);
}

std::shared_ptr<Module> ModuleDictImpl::operator[](const std::string& key) const {
  const auto* module = children_.find(key);
  TG_CHECK_INDEX(module != nullptr, "[nn::ModuleDict] no module with key '", key, "'");
  return *module;
}

std::shared_ptr<Module> ModuleDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleDictImpl>();
  for (const auto& item : children_) copy->insert_pointer(item.key(), item.value()->clone(device));
  copy->train(is_training());
  return copy;
}

void ModuleDictImpl::assign_from(Module& other) {
  auto* source = dynamic_cast<ModuleDictImpl*>(&other);
  TG_CHECK(source != nullptr, "[nn::Module::clone] cannot assign a ", other.name(), " to a ModuleDict");
  *this = std::move(*source);
}

}  // namespace tg::nn
