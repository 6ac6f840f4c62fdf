// KernelFunction: one slot of a dispatch table, callable both typed and boxed.
// It holds an unboxed entry point `Ret(void* functor, DispatchKeySet, Args...)` and/or a
// boxed one; whichever is missing is served by the other through IValue conversion, so a
// typed call reaches a boxed-only kernel and a boxed call reaches an unboxed-only kernel.
// A KernelFunction is immutable once made; tables point at ones that are never freed.
#pragma once

#include <typeinfo>
#include <utility>

#include "core/ivalue.h"
#include "dispatch/dispatch_key_set.h"
#include "dispatch/ivalue_convert.h"

namespace tg {

class OperatorHandle;

// A boxed kernel: reads its arguments from the top of the stack, replaces them with its outputs.
using BoxedKernelFunction = void(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);

class KernelFunction {
 public:
  using InternalBoxedFn = void (*)(const KernelFunction& self, const OperatorHandle& op, DispatchKeySet ks,
                                   Stack* stack);

  KernelFunction() = default;

  bool is_valid() const noexcept { return boxed_fn_ != nullptr; }
  bool is_fallthrough() const noexcept { return boxed_fn_ == &fallthrough_boxed; }
  bool has_unboxed() const noexcept { return unboxed_fn_ != nullptr; }
  // The C++ signature `Ret(Args...)` of an unboxed kernel, nullptr for a boxed-only one.
  const std::type_info* cpp_signature() const noexcept { return cpp_signature_; }

  // "Skip my key": the dispatcher masks the key out and moves on to the next one.
  static KernelFunction makeFallthrough();
  static KernelFunction makeFromBoxedFunction(BoxedKernelFunction* fn);
  // A function known at compile time; called directly, with no indirection through `functor_`.
  // `fn` is `Ret(DispatchKeySet, Args...)` or `Ret(Args...)`.
  template <auto* fn>
  static KernelFunction makeFromUnboxedFunction();
  // A function pointer known only at run time (stored, then called through).
  template <typename Ret, typename... Args>
  static KernelFunction makeFromUnboxedRuntimeFunction(Ret (*fn)(DispatchKeySet, Args...));
  template <typename Ret, typename... Args>
  static KernelFunction makeFromUnboxedRuntimeFunction(Ret (*fn)(Args...));

  // Precondition: Args match cpp_signature() exactly when has_unboxed() (the dispatcher checks
  // this once per TypedOperatorHandle).
  template <typename Ret, typename... Args>
  Ret call(const OperatorHandle& op, DispatchKeySet ks, Args... args) const {
    if (__builtin_expect(unboxed_fn_ != nullptr, 1)) {
      using Unboxed = Ret (*)(void*, DispatchKeySet, Args...);
      return reinterpret_cast<Unboxed>(unboxed_fn_)(functor_, ks, std::forward<Args>(args)...);
    }
    return call_boxed_from_typed<Ret, Args...>(op, ks, std::forward<Args>(args)...);
  }

  void callBoxed(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) const { boxed_fn_(*this, op, ks, stack); }

  // An unboxed call whose arguments are read in place from an array of IValue pointers: no
  // stack, no copies, no refcount changes for tensor arguments. For callers that resolve a
  // kernel once and call it many times with arguments held elsewhere (jit's StaticModule).
  // `results` receives the return value(s) as a boxed call would push them, or nullptr drops
  // them. Only unboxed kernels have it (has_array_call()); the args must match the schema.
  using ArrayCallFn = void (*)(const KernelFunction& self, DispatchKeySet ks, const IValue* const* args,
                               Stack* results);
  bool has_array_call() const noexcept { return array_fn_ != nullptr; }
  void callFromArray(DispatchKeySet ks, const IValue* const* args, Stack* results) const {
    array_fn_(*this, ks, args, results);
  }

  // The kernel that reports "no kernel for this key"; it fills empty table slots so the
  // dispatch fast path never branches on a missing kernel.
  static const KernelFunction& missing();

 private:
  template <typename Ret, typename... Args>
  Ret call_boxed_from_typed(const OperatorHandle& op, DispatchKeySet ks, Args... args) const {
    Stack stack;
    stack.reserve(sizeof...(Args));
    (stack.push_back(detail::ConvertFor<Args>::from(args)), ...);
    boxed_fn_(*this, op, ks, &stack);
    return detail::pop_outputs<Ret>(&stack);
  }

  // Boxed entry point of an unboxed kernel: converts the top sizeof...(Args) IValues, calls,
  // and replaces them with the outputs.
  template <typename Ret, typename... Args>
  static void boxed_from_unboxed(const KernelFunction& self, const OperatorHandle&, DispatchKeySet ks, Stack* stack);

  template <typename Ret, typename... Args>
  static void array_from_unboxed(const KernelFunction& self, DispatchKeySet ks, const IValue* const* args,
                                 Stack* results);

  template <auto* fn, typename Ret, typename... Args>
  static Ret direct_trampoline(void*, DispatchKeySet ks, Args... args) {
    if constexpr (takes_key_set<decltype(fn)>()) {
      return (*fn)(ks, std::forward<Args>(args)...);
    } else {
      return (*fn)(std::forward<Args>(args)...);
    }
  }
  template <typename Ret, typename... Args>
  static Ret runtime_trampoline_with_keys(void* functor, DispatchKeySet ks, Args... args) {
    return reinterpret_cast<Ret (*)(DispatchKeySet, Args...)>(functor)(ks, std::forward<Args>(args)...);
  }
  template <typename Ret, typename... Args>
  static Ret runtime_trampoline(void* functor, DispatchKeySet, Args... args) {
    return reinterpret_cast<Ret (*)(Args...)>(functor)(std::forward<Args>(args)...);
  }

  template <typename FnPtr>
  static constexpr bool takes_key_set();

  static void fallthrough_boxed(const KernelFunction&, const OperatorHandle&, DispatchKeySet, Stack*);
  static void boxed_function_adaptor(const KernelFunction& self, const OperatorHandle& op, DispatchKeySet ks,
                                     Stack* stack);

  void* functor_ = nullptr;
  void* unboxed_fn_ = nullptr;
  InternalBoxedFn boxed_fn_ = nullptr;
  ArrayCallFn array_fn_ = nullptr;
  const std::type_info* cpp_signature_ = nullptr;
};

namespace detail {
[[noreturn]] void boxed_stack_too_short(size_t expected, size_t actual);

template <typename F>
struct FunctionTraits;
template <typename Ret, typename... Args>
struct FunctionTraits<Ret (*)(DispatchKeySet, Args...)> {
  static constexpr bool takes_key_set = true;
  using signature = Ret(Args...);
};
template <typename Ret, typename... Args>
struct FunctionTraits<Ret (*)(Args...)> {
  static constexpr bool takes_key_set = false;
  using signature = Ret(Args...);
};
}  // namespace detail

template <typename FnPtr>
constexpr bool KernelFunction::takes_key_set() {
  return detail::FunctionTraits<FnPtr>::takes_key_set;
}

template <typename Ret, typename... Args>
void KernelFunction::boxed_from_unboxed(const KernelFunction& self, const OperatorHandle&, DispatchKeySet ks,
                                        Stack* stack) {
  constexpr size_t n = sizeof...(Args);
  if (stack->size() < n) detail::boxed_stack_too_short(n, stack->size());
  IValue* base = stack->data() + (stack->size() - n);
  using Unboxed = Ret (*)(void*, DispatchKeySet, Args...);
  auto unboxed = reinterpret_cast<Unboxed>(self.unboxed_fn_);
  auto invoke = [&]<size_t... I>(std::index_sequence<I...>) -> Ret {
    return unboxed(self.functor_, ks, detail::ConvertFor<Args>::to(base[I])...);
  };
  if constexpr (std::is_void_v<Ret>) {
    invoke(std::make_index_sequence<n>());
    stack->erase(stack->end() - n, stack->end());
  } else {
    Ret result = invoke(std::make_index_sequence<n>());
    stack->erase(stack->end() - n, stack->end());
    detail::push_outputs(std::move(result), stack);
  }
}

template <typename Ret, typename... Args>
void KernelFunction::array_from_unboxed(const KernelFunction& self, DispatchKeySet ks, const IValue* const* args,
                                        Stack* results) {
  using Unboxed = Ret (*)(void*, DispatchKeySet, Args...);
  auto unboxed = reinterpret_cast<Unboxed>(self.unboxed_fn_);
  (void)args;  // unread by a kernel without arguments
  auto invoke = [&]<size_t... I>(std::index_sequence<I...>) -> Ret {
    return unboxed(self.functor_, ks, detail::ConvertFor<Args>::to(*args[I])...);
  };
  if constexpr (std::is_void_v<Ret>) {
    invoke(std::make_index_sequence<sizeof...(Args)>());
  } else {
    Ret result = invoke(std::make_index_sequence<sizeof...(Args)>());
    if (results != nullptr) detail::push_outputs(std::move(result), results);
  }
}

template <auto* fn>
KernelFunction KernelFunction::makeFromUnboxedFunction() {
  using Traits = detail::FunctionTraits<decltype(fn)>;
  return []<typename Ret, typename... Args>(Ret (*)(Args...)) {
    KernelFunction k;
    k.unboxed_fn_ = reinterpret_cast<void*>(&direct_trampoline<fn, Ret, Args...>);
    k.boxed_fn_ = &boxed_from_unboxed<Ret, Args...>;
    k.array_fn_ = &array_from_unboxed<Ret, Args...>;
    k.cpp_signature_ = &typeid(Ret(Args...));
    return k;
  }(static_cast<typename Traits::signature*>(nullptr));
}

template <typename Ret, typename... Args>
KernelFunction KernelFunction::makeFromUnboxedRuntimeFunction(Ret (*fn)(DispatchKeySet, Args...)) {
  KernelFunction k;
  k.functor_ = reinterpret_cast<void*>(fn);
  k.unboxed_fn_ = reinterpret_cast<void*>(&runtime_trampoline_with_keys<Ret, Args...>);
  k.boxed_fn_ = &boxed_from_unboxed<Ret, Args...>;
  k.array_fn_ = &array_from_unboxed<Ret, Args...>;
  k.cpp_signature_ = &typeid(Ret(Args...));
  return k;
}

template <typename Ret, typename... Args>
KernelFunction KernelFunction::makeFromUnboxedRuntimeFunction(Ret (*fn)(Args...)) {
  KernelFunction k;
  k.functor_ = reinterpret_cast<void*>(fn);
  k.unboxed_fn_ = reinterpret_cast<void*>(&runtime_trampoline<Ret, Args...>);
  k.boxed_fn_ = &boxed_from_unboxed<Ret, Args...>;
  k.array_fn_ = &array_from_unboxed<Ret, Args...>;
  k.cpp_signature_ = &typeid(Ret(Args...));
  return k;
}

}  // namespace tg
