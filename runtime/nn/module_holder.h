// ModuleHolder<Impl>: the shared-pointer handle users pass around (`Linear` holds a
// `LinearImpl`), as LibTorch's torch::nn::ModuleHolder; TG_MODULE(Name) declares `Name` as the
// holder of `NameImpl`. Invariant: a holder is empty only when made from nullptr; using an
// empty holder raises tg::Error rather than dereferencing null.
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <type_traits>
#include <utility>

#include "core/error.h"

namespace tg::nn {

namespace detail {
[[noreturn]] void empty_holder_error(const char* type_name);
}  // namespace detail

template <typename Contained>
class ModuleHolder {
 public:
  using ContainedType = Contained;

  // Default-constructs the module (ReLU, Sequential). A module without a default constructor
  // must be made with arguments or nullptr: `Linear linear;` does not compile, as in LibTorch.
  ModuleHolder() : impl_(std::make_shared<Contained>()) {
    static_assert(std::is_default_constructible_v<Contained>,
                  "You are trying to default construct a module which has no default constructor. Use = nullptr "
                  "to give it the empty state (e.g. `Linear linear = nullptr;` instead of `Linear linear;`).");
  }
  ModuleHolder(std::nullptr_t) : impl_(nullptr) {}  // NOLINT: implicit like LibTorch
  template <typename Head, typename... Tail,
            typename = std::enable_if_t<!(std::is_same_v<std::decay_t<Head>, std::nullptr_t> && sizeof...(Tail) == 0) &&
                                        !std::is_convertible_v<std::decay_t<Head>, std::shared_ptr<Contained>>>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}  // NOLINT

  explicit operator bool() const noexcept { return !is_empty(); }
  bool is_empty() const noexcept { return impl_ == nullptr; }

  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  const std::shared_ptr<Contained>& ptr() const {
    check_not_empty();
    return impl_;
  }
  Contained* get() {
    check_not_empty();
    return impl_.get();
  }
  const Contained* get() const {
    check_not_empty();
    return impl_.get();
  }

  // Calls the module's forward: model(x) is model->forward(x).
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) {
    return get()->forward(std::forward<Args>(args)...);
  }
  // Indexes containers (Sequential, ModuleList): holder[i].
  template <typename Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }

 protected:
  std::shared_ptr<Contained> impl_;

 private:
  void check_not_empty() const {
    if (impl_ == nullptr) detail::empty_holder_error(typeid(Contained).name());
  }
};

template <typename Contained>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<Contained>& holder) {
  return stream << *holder;
}

}  // namespace tg::nn

// Declares `Name`, the holder of `Impl`, as LibTorch's TORCH_MODULE_IMPL.
#define TG_MODULE_IMPL(Name, ImplType)                                  \
  class Name : public ::tg::nn::ModuleHolder<ImplType> {                \
   public:                                                              \
    using ::tg::nn::ModuleHolder<ImplType>::ModuleHolder;               \
    using Impl = ImplType;                                              \
  }

// TG_MODULE(Linear) declares `Linear`, the holder of `LinearImpl` (LibTorch's TORCH_MODULE).
#define TG_MODULE(Name) TG_MODULE_IMPL(Name, Name##Impl)
