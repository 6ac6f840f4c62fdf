// The Autograd-key kernels that record nothing: they step below autograd and redispatch.
// One template per kind, instantiated per operator by the generated VariableType_*.cpp files
// (they register `&PassthroughKernel<ops::ones>::call`), instead of a generated body each:
//   - PassthroughKernel: an operator with no differentiable input (factories, integer results,
//     comparisons): its outputs get no history;
//   - OutVariantKernel: an out= overload, which refuses inputs that require grad or carry a
//     tangent (PyTorch's "functions with out=... arguments don't support automatic
//     differentiation") before it redispatches.
// `Op` is the operator's struct from Operators.h. Included only by VariableType_*.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>
#include <utility>

#include "autograd/forward_ad.h"
#include "autograd/variable_type_utils.h"
#include "dispatch/dispatch_key_set.h"
#include "dispatch/local_dispatch_key_set.h"

namespace tg::autograd {

namespace detail {

// The overload's full name ("add.out"), NUL-terminated, cut at compile time from the head of
// Op::schema_str ("add.out(Tensor self, ...) -> ...").
template <typename Op>
struct OperatorFullName {
  static constexpr std::string_view schema{Op::schema_str};
  static constexpr std::size_t length = schema.find('(');
  static constexpr std::array<char, length + 1> text = [] {
    std::array<char, length + 1> chars{};
    for (std::size_t i = 0; i < length; ++i) chars[i] = schema[i];
    return chars;
  }();
};

}  // namespace detail

template <typename Op, typename Signature>
struct PassthroughKernelOf;

template <typename Op, typename Ret, typename... Args>
struct PassthroughKernelOf<Op, Ret(Args...)> {
  static Ret call(DispatchKeySet ks, Args... args) {
    AutoDispatchBelowAutograd guard;
    return Op::redispatch(ks & DispatchKeySet::below(DispatchKey::Autograd), std::forward<Args>(args)...);
  }
};

template <typename Op>
using PassthroughKernel = PassthroughKernelOf<Op, typename Op::schema>;

// Inputs: the positions, among the operator's arguments, of its differentiable tensor inputs
// (Tensor, Tensor?, Tensor[] or Tensor?[]; the out arguments are not among them).
template <typename Op, typename Signature, std::size_t... Inputs>
struct OutVariantKernelOf;

template <typename Op, typename Ret, typename... Args, std::size_t... Inputs>
struct OutVariantKernelOf<Op, Ret(Args...), Inputs...> {
  static Ret call(DispatchKeySet ks, Args... args) {
    if constexpr (sizeof...(Inputs) > 0) {
      constexpr const char* name = detail::OperatorFullName<Op>::text.data();
      const auto arguments = std::forward_as_tuple(args...);
      check_no_requires_grad_for_out(name, compute_requires_grad(std::get<Inputs>(arguments)...));
      forward_ad::detail::check_no_tangent(name, "out= variants do not propagate tangents",
                                           std::get<Inputs>(arguments)...);
    }
    AutoDispatchBelowAutograd guard;
    return Op::redispatch(ks & DispatchKeySet::below(DispatchKey::Autograd), std::forward<Args>(args)...);
  }
};

template <typename Op, std::size_t... Inputs>
using OutVariantKernel = OutVariantKernelOf<Op, typename Op::schema, Inputs...>;

}  // namespace tg::autograd
