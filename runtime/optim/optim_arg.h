// TG_OPTIM_ARG(type, name): one field of an optimizer's options, as LibTorch's TORCH_ARG: a
// member `name_`, a chainable setter `name(value)` returning *this, and getters `name()`.
// (Named apart from tg::nn's TG_ARG so that either header may be included alone.)
#pragma once

#define TG_OPTIM_ARG(T, name)                                     \
 public:                                                          \
  inline auto name(const T& new_##name)->decltype(*this) {        \
    this->name##_ = new_##name;                                   \
    return *this;                                                 \
  }                                                               \
  inline const T& name() const noexcept { return this->name##_; } \
  inline T& name() noexcept { return this->name##_; }             \
                                                                  \
 private:                                                         \
  T name##_
