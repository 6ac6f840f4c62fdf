// Element conversion between dtypes, as PyTorch's CPU kernels convert: a C++ static_cast,
// except that conversion to bool is `value != 0`, the 16-bit floats convert through float, and
// floating to integer has a defined result for every value (See Note
// [Floating to integer conversion]). load_row/store_row convert a whole strided row whose dtype
// is known only at run time.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/half.h"
#include "core/scalar_type.h"
#include "dtype_dispatch.h"

namespace tg::cpu {

template <typename T>
inline constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Note [Floating to integer conversion]
// A C++ static_cast from a floating value the integer type cannot hold (NaN, -1.0 to uint8,
// 1e30 to int64) is undefined behaviour, and the sanitized CI leg stops on it. PyTorch's
// kernels cast directly and get what x86's cvttss2si gives: truncation toward zero into int32
// (int64 for an int64 result), the "integer indefinite" INT32_MIN (INT64_MIN) for NaN,
// infinities and values outside, then the low bits for the narrower types. We define exactly
// that result: -1.0 -> uint8 255, 300.0 -> uint8 44, NaN -> uint8 0, 3e9 -> int32 INT32_MIN,
// 1e30 -> int64 INT64_MIN. Going through int32 for the narrow types also keeps the loops as
// fast as the plain cast (vectorized); a range check and a select per element is the cost.
template <typename Wide, typename From>
inline Wide floating_to_integer(From value) {
  // -2^(bits-1) and 2^(bits-1) are powers of two, exact in every floating type.
  constexpr From lower = From(std::numeric_limits<Wide>::min());
  constexpr From upper = -lower;
  return (value >= lower && value < upper) ? static_cast<Wide>(value) : std::numeric_limits<Wide>::min();
}

template <typename To, typename From>
inline To convert(From value) {
  if constexpr (std::is_same_v<To, From>) {
    return value;
  } else if constexpr (is_reduced_float_v<From>) {
    return convert<To>(static_cast<float>(value));
  } else if constexpr (std::is_same_v<To, bool>) {
    return value != From(0);
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(value));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    using Wide = std::conditional_t<(sizeof(To) > 4), int64_t, int32_t>;
    return static_cast<To>(floating_to_integer<Wide>(value));
  } else {
    return static_cast<To>(value);
  }
}

// The ScalarType of an element type: dtype_of<float> == kFloat.
template <typename T>
inline constexpr ScalarType dtype_of = CppTypeToScalarType<T>::value;

// dst[j] = convert<To>(element j of the row at src), j < n; src elements are `stride` bytes apart.
template <typename To>
void load_row(To* dst, const char* src, int64_t stride, ScalarType src_dtype, int64_t n) {
  dispatch_dtype<kAllTypes>(src_dtype, "load_row", [&](auto tag) {
    using From = typename decltype(tag)::type;
    for (int64_t j = 0; j < n; ++j) dst[j] = convert<To>(*reinterpret_cast<const From*>(src + j * stride));
  });
}

// Element j of the row at dst (elements `stride` bytes apart, of dtype dst_dtype) = convert(src[j]).
template <typename From>
void store_row(char* dst, int64_t stride, ScalarType dst_dtype, const From* src, int64_t n) {
  dispatch_dtype<kAllTypes>(dst_dtype, "store_row", [&](auto tag) {
    using To = typename decltype(tag)::type;
    for (int64_t j = 0; j < n; ++j) *reinterpret_cast<To*>(dst + j * stride) = convert<To>(src[j]);
  });
}

}  // namespace tg::cpu
