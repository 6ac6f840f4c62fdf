// Element conversion between dtypes, as PyTorch's CPU kernels convert: a C++ static_cast,
// except that conversion to bool is `value != 0` and the 16-bit floats convert through float.
// load_row/store_row convert a whole strided row whose dtype is known only at run time.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/half.h"
#include "core/scalar_type.h"
#include "dtype_dispatch.h"

namespace tg::cpu {

template <typename T>
inline constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

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
