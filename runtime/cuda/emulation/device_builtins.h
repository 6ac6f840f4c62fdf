// The device side of the emulated CUDA programming model, for kernel sources compiled by the
// host compiler: the execution-space qualifiers, threadIdx/blockIdx/blockDim/gridDim,
// __syncthreads, the warp primitives with 32-lane semantics, atomics and __ldg.
// Invariant: these may be called only from a thread of a kernel launched through
// tg::cuda::emu::launch (launch.h); the threads of a block are cooperative fibers on the
// launching host thread (fiber.h), so a barrier or a shuffle switches to the block's other
// threads until all of them have arrived (see Note [Emulated blocks] in block_scheduler.cpp).
#pragma once

// CUDA declares the math functions for float and double in the global namespace, as
// libstdc++'s <math.h> does (::sqrt(float) and friends).
#include <math.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/emulation/runtime_api.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
// No __noinline__: libstdc++ spells its attribute __attribute__((__noinline__)), which such a
// macro would break; no kernel uses it.
#define __launch_bounds__(...)
#define __restrict__ __restrict
// One copy per host thread: the blocks of a launch run one after another on the launching
// thread, so a block sees its own copy; launches on other host threads see theirs.
#define __shared__ static thread_local

namespace tg::cuda::emu {

// What threadIdx and the others read: the current fiber's coordinates.
struct ThreadCoordinates {
  uint3 thread_idx;
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
};
// Set by the block scheduler before it switches to a thread. Not for use outside a kernel.
extern thread_local const ThreadCoordinates* current_coordinates;

enum class WarpOp : uint8_t { kSync, kShflIdx, kShflUp, kShflDown, kShflXor, kBallot, kAny, kAll };

// The barriers and the lane exchange (block_scheduler.cpp).
void block_barrier();
// Every lane of `mask` calls this with the same op; returns this lane's result: the value
// of the source lane for shuffles, the vote for ballot/any/all.
uint64_t warp_exchange(WarpOp op, unsigned int mask, uint64_t value, int arg, int width, const char* name);
unsigned int active_mask();
// Dynamic shared memory of the current block (the launch's shared-memory bytes).
void* dynamic_shared_memory();

template <typename T>
inline T shuffle(WarpOp op, unsigned int mask, T value, int arg, int width, const char* name) {
  static_assert(sizeof(T) <= sizeof(uint64_t) && std::is_trivially_copyable_v<T>,
                "the emulated shuffles move values of at most 8 bytes");
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  bits = warp_exchange(op, mask, bits, arg, width, name);
  T result;
  std::memcpy(&result, &bits, sizeof(T));
  return result;
}

template <typename T>
inline T atomic_update_float(T* address, T operand) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  Bits* word = reinterpret_cast<Bits*>(address);
  Bits old = __atomic_load_n(word, __ATOMIC_RELAXED);
  for (;;) {
    T value;
    std::memcpy(&value, &old, sizeof(T));
    value += operand;
    Bits updated;
    std::memcpy(&updated, &value, sizeof(T));
    if (__atomic_compare_exchange_n(word, &old, updated, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
      std::memcpy(&value, &old, sizeof(T));
      return value;
    }
  }
}

}  // namespace tg::cuda::emu

#define threadIdx (::tg::cuda::emu::current_coordinates->thread_idx)
#define blockIdx (::tg::cuda::emu::current_coordinates->block_idx)
#define blockDim (::tg::cuda::emu::current_coordinates->block_dim)
#define gridDim (::tg::cuda::emu::current_coordinates->grid_dim)
inline constexpr int warpSize = 32;

inline void __syncthreads() { ::tg::cuda::emu::block_barrier(); }
inline void __syncwarp(unsigned int mask = 0xffffffffu) {
  (void)::tg::cuda::emu::warp_exchange(::tg::cuda::emu::WarpOp::kSync, mask, 0, 0, 32, "__syncwarp");
}
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline unsigned int __activemask() { return ::tg::cuda::emu::active_mask(); }

template <typename T>
inline T __shfl_sync(unsigned int mask, T value, int src_lane, int width = 32) {
  return ::tg::cuda::emu::shuffle(::tg::cuda::emu::WarpOp::kShflIdx, mask, value, src_lane, width, "__shfl_sync");
}
template <typename T>
inline T __shfl_up_sync(unsigned int mask, T value, unsigned int delta, int width = 32) {
  return ::tg::cuda::emu::shuffle(::tg::cuda::emu::WarpOp::kShflUp, mask, value, static_cast<int>(delta), width,
                                  "__shfl_up_sync");
}
template <typename T>
inline T __shfl_down_sync(unsigned int mask, T value, unsigned int delta, int width = 32) {
  return ::tg::cuda::emu::shuffle(::tg::cuda::emu::WarpOp::kShflDown, mask, value, static_cast<int>(delta), width,
                                  "__shfl_down_sync");
}
template <typename T>
inline T __shfl_xor_sync(unsigned int mask, T value, int lane_mask, int width = 32) {
  return ::tg::cuda::emu::shuffle(::tg::cuda::emu::WarpOp::kShflXor, mask, value, lane_mask, width, "__shfl_xor_sync");
}
inline unsigned int __ballot_sync(unsigned int mask, int predicate) {
  return static_cast<unsigned int>(::tg::cuda::emu::warp_exchange(::tg::cuda::emu::WarpOp::kBallot, mask,
                                                                    predicate != 0, 0, 32, "__ballot_sync"));
}
inline int __any_sync(unsigned int mask, int predicate) {
  return static_cast<int>(
      ::tg::cuda::emu::warp_exchange(::tg::cuda::emu::WarpOp::kAny, mask, predicate != 0, 0, 32, "__any_sync"));
}
inline int __all_sync(unsigned int mask, int predicate) {
  return static_cast<int>(
      ::tg::cuda::emu::warp_exchange(::tg::cuda::emu::WarpOp::kAll, mask, predicate != 0, 0, 32, "__all_sync"));
}

template <typename T>
inline T __ldg(const T* address) {
  return *address;
}

inline int atomicAdd(int* a, int v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }
inline unsigned int atomicAdd(unsigned int* a, unsigned int v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }
inline unsigned long long atomicAdd(unsigned long long* a, unsigned long long v) {
  return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);
}
inline float atomicAdd(float* a, float v) { return ::tg::cuda::emu::atomic_update_float(a, v); }
inline double atomicAdd(double* a, double v) { return ::tg::cuda::emu::atomic_update_float(a, v); }
inline int atomicSub(int* a, int v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }
inline int atomicExch(int* a, int v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }
inline unsigned int atomicExch(unsigned int* a, unsigned int v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }
template <typename T>
inline T atomic_extreme(T* a, T v, bool maximum) {
  T old = __atomic_load_n(a, __ATOMIC_RELAXED);
  while ((maximum ? v > old : v < old) &&
         !__atomic_compare_exchange_n(a, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  return old;
}
inline int atomicMax(int* a, int v) { return atomic_extreme(a, v, true); }
inline int atomicMin(int* a, int v) { return atomic_extreme(a, v, false); }
inline unsigned int atomicMax(unsigned int* a, unsigned int v) { return atomic_extreme(a, v, true); }
inline unsigned int atomicMin(unsigned int* a, unsigned int v) { return atomic_extreme(a, v, false); }
inline int atomicOr(int* a, int v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }
inline unsigned int atomicOr(unsigned int* a, unsigned int v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }
template <typename T>
inline T atomic_cas(T* a, T compare, T value) {
  __atomic_compare_exchange_n(a, &compare, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return compare;  // the old value either way
}
inline int atomicCAS(int* a, int compare, int value) { return atomic_cas(a, compare, value); }
inline unsigned int atomicCAS(unsigned int* a, unsigned int compare, unsigned int value) {
  return atomic_cas(a, compare, value);
}
inline unsigned long long atomicCAS(unsigned long long* a, unsigned long long compare, unsigned long long value) {
  return atomic_cas(a, compare, value);
}
