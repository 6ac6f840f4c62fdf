#include "nn/modules/sequential.h"

namespace tg::nn {

void SequentialImpl::add(std::string name, std::shared_ptr<Module> module, Call call) {
  register_module(std::move(name), module);
  entries_.push_back({std::move(module), call});
}

void SequentialImpl::extend(const SequentialImpl& other) {
  for (const Entry& entry : other.entries_) add(std::to_string(size()), entry.module, entry.call);
}

Tensor SequentialImpl::forward(Tensor input) {
  TG_CHECK(!entries_.empty(), "[nn::Sequential::forward] cannot call forward() on an empty Sequential");
  for (const Entry& entry : entries_) input = entry.call(*entry.module, std::move(input));
  return input;
}

std::shared_ptr<Module> SequentialImpl::ptr(size_t index) const {
  TG_CHECK_INDEX(index < entries_.size(), "[nn::Sequential] index ", index, " is out of range for a Sequential of ",
                 entries_.size(), " modules");
  return entries_[index].module;
}

std::shared_ptr<Module> SequentialImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<SequentialImpl>();
  const auto names = children_.keys();
  for (size_t i = 0; i < entries_.size(); ++i) copy->add(names[i], entries_[i].module->clone(device), entries_[i].call);
  copy->train(is_training());
  return copy;
}

void SequentialImpl::assign_from(Module& other) {
  auto* source = dynamic_cast<SequentialImpl*>(&other);
  TG_CHECK(source != nullptr, "[nn::Module::clone] cannot assign a ", other.name(), " to a Sequential");
  *this = std::move(*source);
}

}  // namespace tg::nn
