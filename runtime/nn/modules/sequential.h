// Sequential: modules applied one after the other, as LibTorch's torch::nn::Sequential.
// Children are named "0", "1", ... unless given names. Each element's forward takes one
// Tensor and returns one Tensor (LibTorch's AnyModule is more general; docs/porting.md).
// Invariant: entries_[i].module is children_'s i-th value.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "nn/modules/module_pointer.h"

namespace tg::nn {

class SequentialImpl : public Module {
 public:
  SequentialImpl() = default;
  template <typename... Modules>
    requires(sizeof...(Modules) > 0 && (!std::is_same_v<std::decay_t<Modules>, SequentialImpl> && ...))
  explicit SequentialImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }

  template <typename M>
  void push_back(M&& module) {
    push_back(std::to_string(size()), std::forward<M>(module));
  }
  template <typename M>
  void push_back(std::string name, M&& module) {
    auto pointer = detail::module_pointer(std::forward<M>(module));
    using Impl = typename decltype(pointer)::element_type;
    static_assert(requires(Impl& m, Tensor t) { { m.forward(t) } -> std::convertible_to<Tensor>; },
                  "a Sequential element's forward must take one Tensor and return a Tensor");
    add(std::move(name), pointer, [](Module& m, Tensor x) -> Tensor { return static_cast<Impl&>(m).forward(std::move(x)); });
  }
  void extend(const SequentialImpl& other);

  Tensor forward(Tensor input);

  size_t size() const noexcept { return entries_.size(); }
  bool is_empty() const noexcept { return entries_.empty(); }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  std::shared_ptr<Module> ptr(size_t index) const;
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const {
    return std::dynamic_pointer_cast<T>(ptr(index));
  }
  template <typename T>
  T& at(size_t index) {
    auto* module = dynamic_cast<T*>(ptr(index).get());
    TG_CHECK(module != nullptr, "[nn::Sequential::at] element ", index, " is a ", ptr(index)->name(), ", not the type asked for");
    return *module;
  }

  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override { stream << "tg::nn::Sequential"; }

 private:
  using Call = Tensor (*)(Module&, Tensor);
  struct Entry {
    std::shared_ptr<Module> module;
    Call call;
  };

  void add(std::string name, std::shared_ptr<Module> module, Call call);
  void assign_from(Module& other) override;

  std::vector<Entry> entries_;
};
TG_MODULE(Sequential);

}  // namespace tg::nn
