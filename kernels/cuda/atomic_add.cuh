// atomic_add(address, value): *address = convert<S>(math::add(convert<opmath_t<S>>(*address),
// value)) as one atomic step, for every storage type S: the hardware's atomicAdd for float,
// double, int32 and int64 (two's complement, so integers wrap as on the CPU), and a
// compare-and-swap loop on the aligned 32-bit word holding the element for the 1- and 2-byte
// types (uint8, int8, int16, bool: logical or, float16, bfloat16: rounded after each add, as
// the CPU's scatter_add and index_add round each partial sum).
// Precondition: the 32-bit word holding the element lies in the allocation (true for the
// caching allocator's blocks, which are 512-byte aligned and sized).
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda/device_types.cuh"
#include "scalar_math.h"

namespace tg::cuda {

// The element whose bits are `bits`, and back (1- and 2-byte types).
template <typename S, typename Bits>
__device__ inline S from_bits(Bits bits) {
  if constexpr (std::is_same_v<S, __half>) {
    return __ushort_as_half(bits);
  } else if constexpr (std::is_same_v<S, __nv_bfloat16>) {
    return __ushort_as_bfloat16(bits);
  } else if constexpr (std::is_same_v<S, bool>) {
    return bits != 0;
  } else {
    return static_cast<S>(bits);  // two's complement (C++20)
  }
}

template <typename Bits, typename S>
__device__ inline Bits to_bits(S value) {
  if constexpr (std::is_same_v<S, __half>) {
    return __half_as_ushort(value);
  } else if constexpr (std::is_same_v<S, __nv_bfloat16>) {
    return __bfloat16_as_ushort(value);
  } else {
    return static_cast<Bits>(value);
  }
}

template <typename S>
__device__ inline void atomic_add(S* address, opmath_t<S> value) {
  if constexpr (std::is_same_v<S, float> || std::is_same_v<S, double> || std::is_same_v<S, int32_t>) {
    atomicAdd(address, value);
  } else if constexpr (std::is_same_v<S, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value));
  } else {
    static_assert(sizeof(S) <= 2, "4- and 8-byte types have hardware atomics");
    using Bits = std::conditional_t<sizeof(S) == 1, uint8_t, uint16_t>;
    const uintptr_t at = reinterpret_cast<uintptr_t>(address);
    unsigned int* word = reinterpret_cast<unsigned int*>(at & ~uintptr_t{3});
    const unsigned int shift = static_cast<unsigned int>(at & 3) * 8;
    const unsigned int mask = static_cast<unsigned int>(static_cast<Bits>(~Bits{0})) << shift;
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      const S current = from_bits<S>(static_cast<Bits>((assumed & mask) >> shift));
      const S updated = convert<S>(math::add(convert<opmath_t<S>>(current), value));
      const unsigned int updated_bits = to_bits<Bits>(updated);
      old = atomicCAS(word, assumed, (assumed & ~mask) | (updated_bits << shift));
    } while (assumed != old);
  }
}

}  // namespace tg::cuda
