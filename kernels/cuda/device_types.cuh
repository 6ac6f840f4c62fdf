// Element types on the device. Each ScalarType is stored as its C++ type, float16 and bfloat16
// as CUDA's __half and __nv_bfloat16 (same bits as tg::Half and tg::BFloat16), and computed in
// opmath_t: float for the two 16-bit floats, the type itself otherwise (as on the CPU).
// convert<To>(from) converts as the CPU kernels do (kernels/cpu/convert.h): a static_cast,
// except that to bool is `value != 0` and the 16-bit floats go through float, rounding to
// nearest even. load_as/store_as convert an element whose dtype is known only at run time.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "core/scalar_type.h"
#include "dtype_dispatch.h"

namespace tg::cuda {

#define TG_CUDA_FORALL_TYPES(_) \
  _(uint8_t, Byte)              \
  _(int8_t, Char)               \
  _(int16_t, Short)             \
  _(int32_t, Int)               \
  _(int64_t, Long)              \
  _(__half, Half)               \
  _(float, Float)               \
  _(double, Double)             \
  _(bool, Bool)                 \
  _(__nv_bfloat16, BFloat16)

template <typename T>
inline constexpr bool is_reduced_float_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <typename T>
using opmath_t = std::conditional_t<is_reduced_float_v<T>, float, T>;

template <typename T>
struct DeviceDtype;
#define TG_CUDA_DTYPE_OF(ctype, name) \
  template <>                         \
  struct DeviceDtype<ctype> {         \
    static constexpr ScalarType value = ScalarType::name; \
  };
TG_CUDA_FORALL_TYPES(TG_CUDA_DTYPE_OF)
#undef TG_CUDA_DTYPE_OF

// The ScalarType stored as T on the device: dtype_of<__half> == kHalf.
template <typename T>
inline constexpr ScalarType dtype_of = DeviceDtype<T>::value;

template <typename To, typename From>
__host__ __device__ inline To convert(From value) {
  if constexpr (std::is_same_v<To, From>) {
    return value;
  } else if constexpr (std::is_same_v<From, __half>) {
    return convert<To>(__half2float(value));
  } else if constexpr (std::is_same_v<From, __nv_bfloat16>) {
    return convert<To>(__bfloat162float(value));
  } else if constexpr (std::is_same_v<To, bool>) {
    return value != From(0);
  } else if constexpr (std::is_same_v<To, __half>) {
    return __float2half_rn(static_cast<float>(value));
  } else if constexpr (std::is_same_v<To, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(value));
  } else {
    return static_cast<To>(value);
  }
}

// Calls body(TypeTag<T>{}) with T the device type of `dtype` when `dtype` is in Supported;
// otherwise raises the CPU dispatch's NotImplementedError ("[op] not implemented for ...").
template <DtypeSet Supported, typename Body>
decltype(auto) dispatch_device_dtype(ScalarType dtype, std::string_view op, Body&& body) {
  switch (dtype) {
#define TG_CUDA_DISPATCH_CASE(ctype, name)                                            \
  case ScalarType::name:                                                              \
    if constexpr (Supported.contains(ScalarType::name)) return body(TypeTag<ctype>{}); \
    break;
    TG_CUDA_FORALL_TYPES(TG_CUDA_DISPATCH_CASE)
#undef TG_CUDA_DISPATCH_CASE
    case ScalarType::Undefined:
      break;
  }
  ::tg::detail::dtype_not_implemented(op, dtype, Supported);
}

// The element at p, of run-time dtype `dtype`, converted to T.
template <typename T>
__device__ inline T load_as(const char* p, ScalarType dtype) {
  switch (dtype) {
#define TG_CUDA_LOAD_CASE(ctype, name) \
  case ScalarType::name:               \
    return convert<T>(*reinterpret_cast<const ctype*>(p));
    TG_CUDA_FORALL_TYPES(TG_CUDA_LOAD_CASE)
#undef TG_CUDA_LOAD_CASE
    default:
      return T();
  }
}

// Stores `value` converted to the run-time dtype `dtype` at p.
template <typename T>
__device__ inline void store_as(char* p, ScalarType dtype, T value) {
  switch (dtype) {
#define TG_CUDA_STORE_CASE(ctype, name)                    \
  case ScalarType::name:                                   \
    *reinterpret_cast<ctype*>(p) = convert<ctype>(value);  \
    break;
    TG_CUDA_FORALL_TYPES(TG_CUDA_STORE_CASE)
#undef TG_CUDA_STORE_CASE
    default:
      break;
  }
}

}  // namespace tg::cuda
