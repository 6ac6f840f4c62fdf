// Math for formulas written once for the CPU kernels and the CUDA ones: TG_HOST_DEVICE marks a
// function nvcc compiles for both sides, and exp, erf, tanh, sqrt and fabs call std:: on the
// host and CUDA's overloads (float, double) in device code.
#pragma once

#include <cmath>
#include <type_traits>

// TG_EXEC_CHECK_DISABLE before a TG_HOST_DEVICE template that calls a functor it is given
// (a device lambda in device code, a host one on the CPU): nvcc then checks each side only
// where it is used.
#if defined(__CUDACC__)
#define TG_HOST_DEVICE __host__ __device__
#define TG_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#define TG_HOST_DEVICE
#define TG_EXEC_CHECK_DISABLE
#endif

namespace tg::hd {

#if defined(__CUDA_ARCH__)
#define TG_HD_MATH(name) \
  template <typename T>  \
  __host__ __device__ inline T name(T x) { return ::name(x); }
#else
// On the host T may also be a SIMD vector of the CPU kernels (cpu::Vectorized), which has
// the function as a member.
#define TG_HD_MATH(name)                                          \
  template <typename T>                                           \
  TG_HOST_DEVICE inline T name(T x) {                             \
    if constexpr (std::is_arithmetic_v<T>) return std::name(x); \
    else return x.name();                                         \
  }
#endif
TG_HD_MATH(exp)
TG_HD_MATH(erf)
TG_HD_MATH(tanh)
TG_HD_MATH(sqrt)
TG_HD_MATH(fabs)
#undef TG_HD_MATH

}  // namespace tg::hd
