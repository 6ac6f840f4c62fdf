// Dtype dispatch: runs a kernel body with `scalar_t` bound to the C++ element type of a
// runtime ScalarType. The DtypeSet a dispatch names is the one statement of which dtypes the
// kernel supports; any other dtype raises tg::NotImplementedError "[op] not implemented for
// 'int8'", and the body is never instantiated for it.
//
//   TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), "exp", [&] {
//     cpu::unary_kernel<scalar_t>(out, self, [](auto x) { return std::exp(x); });
//   });
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/error.h"
#include "core/half.h"
#include "core/scalar_type.h"

namespace tg {

// A set of dtypes, usable as a template argument. Invariant: bit int(t) set <=> t in the set.
struct DtypeSet {
  uint32_t bits = 0;

  constexpr DtypeSet() = default;
  constexpr DtypeSet(std::initializer_list<ScalarType> types) {
    for (ScalarType t : types) bits |= bit(t);
  }
  constexpr bool contains(ScalarType t) const { return (bits & bit(t)) != 0; }
  constexpr DtypeSet operator|(DtypeSet other) const { return from_bits(bits | other.bits); }
  constexpr DtypeSet operator-(DtypeSet other) const { return from_bits(bits & ~other.bits); }

 private:
  static constexpr uint32_t bit(ScalarType t) { return uint32_t{1} << static_cast<int>(t); }
  static constexpr DtypeSet from_bits(uint32_t b) {
    DtypeSet s;
    s.bits = b;
    return s;
  }
};

inline constexpr DtypeSet kFloatingTypes{kDouble, kFloat, kHalf, kBFloat16};
inline constexpr DtypeSet kIntegralTypes{kByte, kChar, kShort, kInt, kLong};
inline constexpr DtypeSet kNumericTypes = kFloatingTypes | kIntegralTypes;  // all but bool
inline constexpr DtypeSet kAllTypes = kNumericTypes | DtypeSet{kBool};

// The type a kernel computes in for elements of type T: float for the 16-bit floats (they
// are storage formats), T itself otherwise.
template <typename T>
using opmath_t = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <typename T>
struct TypeTag {
  using type = T;
};

namespace detail {
// The message ends with the dispatch's own set, "; supported: float64, float32", which the
// conformance tests read as the kernel's claim (tests/conformance/checks_dtypes.cpp).
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] inline void dtype_not_implemented(std::string_view op, ScalarType dtype,
                                                                               DtypeSet supported) {
  std::string names;
  for (int i = 0; i < kNumScalarTypes; ++i) {
    const auto t = static_cast<ScalarType>(i);
    if (supported.contains(t)) names += (names.empty() ? "" : ", ") + std::string(to_string(t));
  }
  TG_THROW(NotImplementedError, "[", op, "] not implemented for '", dtype, "'; supported: ", names);
}
}  // namespace detail

// Calls body(TypeTag<T>{}) with T the element type of `dtype` when `dtype` is in Supported.
template <DtypeSet Supported, typename Body>
decltype(auto) dispatch_dtype(ScalarType dtype, std::string_view op, Body&& body) {
  switch (dtype) {
#define TG_DISPATCH_DTYPE_CASE(ctype, name, str)                                    \
  case ScalarType::name:                                                            \
    if constexpr (Supported.contains(ScalarType::name)) return body(TypeTag<ctype>{}); \
    break;
    TG_FORALL_SCALAR_TYPES(TG_DISPATCH_DTYPE_CASE)
#undef TG_DISPATCH_DTYPE_CASE
    case ScalarType::Undefined:
      break;
  }
  detail::dtype_not_implemented(op, dtype, Supported);
}

}  // namespace tg

// TG_DISPATCH_TYPES(set, dtype, op, [&] { ... scalar_t ... }): the lambda runs with
// `scalar_t` naming the element type of `dtype`; its return value is returned.
#define TG_DISPATCH_TYPES(SET, DTYPE, OP, ...)                                  \
  ::tg::dispatch_dtype<SET>((DTYPE), (OP), [&](auto tg_dtype_tag_) {            \
    using scalar_t [[maybe_unused]] = typename decltype(tg_dtype_tag_)::type;   \
    return __VA_ARGS__();                                                       \
  })

#define TG_DISPATCH_ALL_TYPES(DTYPE, OP, ...) TG_DISPATCH_TYPES(::tg::kAllTypes, DTYPE, OP, __VA_ARGS__)
#define TG_DISPATCH_NUMERIC_TYPES(DTYPE, OP, ...) TG_DISPATCH_TYPES(::tg::kNumericTypes, DTYPE, OP, __VA_ARGS__)
#define TG_DISPATCH_FLOATING_TYPES(DTYPE, OP, ...) TG_DISPATCH_TYPES(::tg::kFloatingTypes, DTYPE, OP, __VA_ARGS__)
#define TG_DISPATCH_INTEGRAL_TYPES(DTYPE, OP, ...) TG_DISPATCH_TYPES(::tg::kIntegralTypes, DTYPE, OP, __VA_ARGS__)
