// detail::module_pointer(m): the shared_ptr<Impl> behind whatever a container is given, as
// LibTorch's containers accept: a holder (Linear), a shared_ptr<LinearImpl>, or a module value.
#pragma once

#include <memory>
#include <type_traits>

#include "nn/module.h"
#include "nn/module_holder.h"

namespace tg::nn::detail {

template <typename T>
struct IsModuleHolder : std::false_type {};
template <typename T>
struct IsModuleHolder<ModuleHolder<T>> : std::true_type {};

template <typename M>
auto module_pointer(M&& module) {
  using Plain = std::decay_t<M>;
  if constexpr (std::is_base_of_v<Module, Plain>) {
    return std::make_shared<Plain>(std::forward<M>(module));
  } else if constexpr (requires { typename Plain::ContainedType; }) {
    return std::shared_ptr<typename Plain::ContainedType>(module.ptr());
  } else {
    static_assert(std::is_base_of_v<Module, typename Plain::element_type>,
                  "a container takes a module: a holder, a std::shared_ptr to a Module, or a Module value");
    return std::shared_ptr<typename Plain::element_type>(std::forward<M>(module));
  }
}

}  // namespace tg::nn::detail
