#include "dispatch/kernel_function.h"

#include "dispatch/dispatcher.h"

namespace tg {

namespace detail {

void boxed_stack_too_short(size_t expected, size_t actual) {
  TG_THROW(ValueError, "[dispatcher] boxed kernel expects ", expected, " arguments on the stack, found ", actual);
}

void boxed_output_count_error(size_t expected, size_t actual) {
  TG_THROW(Error, "[dispatcher] boxed kernel left ", actual, " values on the stack, the typed call expects ",
           expected);
}

}  // namespace detail

namespace {

[[noreturn]] void report_missing_kernel(const KernelFunction&, const OperatorHandle& op, DispatchKeySet ks, Stack*) {
  std::string keys;
  for (DispatchKey k : op.registeredKeys()) keys += (keys.empty() ? "" : ", ") + std::string(to_string(k));
  if (keys.empty()) keys = "none";
  if (ks.empty()) {
    TG_THROW(NotImplementedError, "[", op.operator_name().str(),
             "] nothing to dispatch on: the call's key set is empty (it has no tensor argument and no key is "
             "included thread-locally, or every key it had is excluded or a fallthrough); kernels are registered "
             "for: ", keys);
  }
  TG_THROW(NotImplementedError, "[", op.operator_name().str(), "] no kernel for dispatch key ",
           ks.highest_priority_key(), " (the call's key set is ", ks, "); kernels are registered for: ", keys);
}

}  // namespace

KernelFunction KernelFunction::makeFallthrough() {
  KernelFunction k;
  k.boxed_fn_ = &fallthrough_boxed;
  return k;
}

void KernelFunction::fallthrough_boxed(const KernelFunction&, const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  // Only reached when a caller bypasses the mask (a redispatch with the key still set).
  op.redispatchBoxed(ks.below_highest(), stack);
}

void KernelFunction::boxed_function_adaptor(const KernelFunction& self, const OperatorHandle& op, DispatchKeySet ks,
                                            Stack* stack) {
  reinterpret_cast<BoxedKernelFunction*>(self.functor_)(op, ks, stack);
}

KernelFunction KernelFunction::makeFromBoxedFunction(BoxedKernelFunction* fn) {
  KernelFunction k;
  k.functor_ = reinterpret_cast<void*>(fn);
  k.boxed_fn_ = &boxed_function_adaptor;
  return k;
}

const KernelFunction& KernelFunction::missing() {
  static const KernelFunction kernel = [] {
    KernelFunction k;
    k.boxed_fn_ = &report_missing_kernel;
    return k;
  }();
  return kernel;
}

}  // namespace tg
