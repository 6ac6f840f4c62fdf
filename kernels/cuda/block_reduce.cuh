// Combining the values of the threads of a row, for kernels that give each row (softmax, layer
// norm, a loss) a warp or a whole block: row_allreduce<kThreads>(value, op) returns op over
// the kThreads values of the row in every one of its threads, through __shfl_xor_sync within
// a warp and shared memory across the warps of a block.
#pragma once

#include <cstdint>
#include <type_traits>

namespace tg::cuda {

template <typename T>
__device__ inline T shfl_xor(T value, int mask) {
  if constexpr (sizeof(T) < sizeof(int)) {
    return static_cast<T>(__shfl_xor_sync(0xffffffffu, static_cast<int>(value), mask));
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return static_cast<int64_t>(__shfl_xor_sync(0xffffffffu, static_cast<long long>(value), mask));
  } else {
    return __shfl_xor_sync(0xffffffffu, value, mask);
  }
}

struct SumOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return a + b;
  }
};

// Precondition: kThreads is 32 (a warp: threadIdx.x is the lane) or a multiple of 32 equal to
// blockDim.x with blockDim.y == 1, and then every thread of the block calls it.
template <int kThreads, typename Acc, typename Op>
__device__ inline Acc row_allreduce(Acc value, Op op) {
  static_assert(kThreads % 32 == 0, "a row is whole warps");
#pragma unroll
  for (int delta = 16; delta > 0; delta /= 2) value = op(value, shfl_xor(value, delta));
  if constexpr (kThreads > 32) {
    __shared__ Acc warps[kThreads / 32];
    __syncthreads();  // the previous call's reads of `warps` are done
    if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = value;
    __syncthreads();
    value = warps[0];
    for (int w = 1; w < kThreads / 32; ++w) value = op(value, warps[w]);
  }
  return value;
}

}  // namespace tg::cuda
