// TG_ARG(type, name): one field of an options class (nn modules, optimizers, data loaders),
// as LibTorch's TORCH_ARG: a member `name_`, a chainable setter `name(value)` returning *this,
// and getters `name()`.
#pragma once

#include <utility>

#define TG_ARG(T, name)                                                   \
 public:                                                                  \
  inline auto name(const T& new_##name)->decltype(*this) {                \
    this->name##_ = new_##name;                                           \
    return *this;                                                         \
  }                                                                       \
  inline auto name(T&& new_##name)->decltype(*this) {                     \
    this->name##_ = std::move(new_##name);                                \
    return *this;                                                         \
  }                                                                       \
  inline const T& name() const noexcept { return this->name##_; }         \
  inline T& name() noexcept { return this->name##_; }                     \
                                                                          \
 private:                                                                 \
  T name##_
