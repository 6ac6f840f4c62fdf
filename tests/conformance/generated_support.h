// What the generated conformance tests (build/generated/ConformanceTests_N.cpp) include:
// the spec types, the checks, the report plan, and the two helpers their calls use.
#pragma once

#include <cmath>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "checks.h"
#include "op_spec.h"
#include "report.h"

namespace tg::conformance {

// Argument `index` of a call, as the C++ type the public API takes.
template <typename T>
decltype(auto) arg(const Stack& args, size_t index) {
  return detail::IValueConvert<T>::to(args.at(index));
}

// Whatever a public function returns, as a stack.
inline Stack box_returns(const Tensor& t) { return {IValue(t)}; }
inline Stack box_returns(const std::vector<Tensor>& ts) { return {IValue(ts)}; }
inline Stack box_returns(const Scalar& s) { return {IValue(s)}; }
template <typename T>
  requires std::is_arithmetic_v<T>
Stack box_returns(T v) {
  return {IValue(v)};
}
template <typename... Ts>
Stack box_returns(const std::tuple<Ts...>& values) {
  Stack stack;
  std::apply([&](const auto&... v) { (stack.push_back(box_returns(v).at(0)), ...); }, values);
  return stack;
}

}  // namespace tg::conformance
