// The one elementwise path of the CUDA kernels (the role of ATen's Loops.cuh):
//
//   launch_elementwise<Out, In...>(args, op);     // Out, In: device storage types
//
// computes out[i] = op(x_1, ..., x_n) for every element, where x_k is input k's element as
// opmath_t<In_k> (float for float16 and bfloat16) and op's result is converted to Out.
// Every operand with data must hold exactly its storage type: the host converts inputs of
// other dtypes beforehand (ElementwiseLaunch in elementwise_host.h), so no kernel carries a
// conversion for every dtype pair. Broadcasting is in the strides (0 on broadcast dims), and
// a CPU scalar input travels by value (ScalarValue in args) and is broadcast.
// Two kernels, both grid-stride loops:
//   - vectorized, when every operand is contiguous and starts on a boundary of its vector:
//     each thread moves kVec elements per operand with one 16-byte (or narrower) load or
//     store, kVec = 16 / sizeof(the widest operand type);
//   - strided, otherwise: offsets from the linear index through the (merged) dims.
// `op` is a functor usable in device code, taking and returning opmath values.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "core/deterministic.h"
#include "cuda/cuda_check.h"
#include "cuda/cuda_device.h"
#include "cuda/cuda_stream.h"
#include "cuda/device_types.cuh"
#include "cuda/elementwise_args.h"
#include "cuda/launch.cuh"

namespace tg::cuda {

inline constexpr int kElementwiseBlock = 256;

template <typename T>
__host__ __device__ inline T scalar_as(const ScalarValue& value) {
  return value.is_floating ? convert<T>(value.f) : convert<T>(value.i);
}

template <typename T, int kVec>
struct alignas(sizeof(T) * kVec) AlignedVector {
  T values[kVec];
};

// One input of the vectorized kernel: contiguous typed memory, or a broadcast scalar.
template <typename T>
struct VectorSource {
  const T* data;              // null for a scalar
  opmath_t<T> scalar;
};

template <typename T, int kVec>
struct Chunk {
  opmath_t<T> values[kVec];
};

template <int kVec, typename T>
__device__ inline Chunk<T, kVec> load_chunk(const VectorSource<T>& source, int64_t chunk) {
  Chunk<T, kVec> result;
  if (source.data == nullptr) {
#pragma unroll
    for (int j = 0; j < kVec; ++j) result.values[j] = source.scalar;
  } else {
    const auto raw = reinterpret_cast<const AlignedVector<T, kVec>*>(source.data)[chunk];
#pragma unroll
    for (int j = 0; j < kVec; ++j) result.values[j] = convert<opmath_t<T>>(raw.values[j]);
  }
  return result;
}

template <typename T>
__device__ inline opmath_t<T> load_one(const VectorSource<T>& source, int64_t i) {
  return source.data == nullptr ? source.scalar : convert<opmath_t<T>>(source.data[i]);
}

template <int kVec, typename Out, typename Op, typename... In>
__device__ inline void apply_chunk(Out* out, int64_t chunk, const Op& op, const Chunk<In, kVec>&... inputs) {
  AlignedVector<Out, kVec> result;
#pragma unroll
  for (int j = 0; j < kVec; ++j) result.values[j] = convert<Out>(op(inputs.values[j]...));
  reinterpret_cast<AlignedVector<Out, kVec>*>(out)[chunk] = result;
}

template <int kVec, typename Out, typename Op, typename... In>
__global__ void vectorized_elementwise_kernel(int64_t n, Out* out, Op op, VectorSource<In>... inputs) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t chunks = n / kVec;
  for (int64_t c = first; c < chunks; c += stride) apply_chunk<kVec>(out, c, op, load_chunk<kVec>(inputs, c)...);
  for (int64_t i = chunks * kVec + first; i < n; i += stride) out[i] = convert<Out>(op(load_one(inputs, i)...));
}

// Input k's element at byte offset `offset`, as opmath_t<T>.
template <typename T>
__device__ inline opmath_t<T> load_operand(const ElementwiseArgs& args, int k, int64_t offset) {
  if (args.data[k] == nullptr) return scalar_as<opmath_t<T>>(args.scalars[k]);
  return convert<opmath_t<T>>(*reinterpret_cast<const T*>(args.data[k] + offset));
}

template <typename Out, typename Op, typename... In, size_t... K>
__device__ inline void strided_element(const ElementwiseArgs& args, const Op& op, int64_t linear,
                                       std::index_sequence<K...>) {
  constexpr int kOperands = 1 + static_cast<int>(sizeof...(In));
  int64_t offsets[kOperands] = {};
  for (int d = 0; d < args.ndim; ++d) {
    const int64_t size = args.sizes[d];
    const int64_t index = linear % size;
    linear /= size;
#pragma unroll
    for (int k = 0; k < kOperands; ++k) offsets[k] += index * args.strides[k][d];
  }
  *reinterpret_cast<Out*>(args.data[0] + offsets[0]) =
      convert<Out>(op(load_operand<In>(args, static_cast<int>(K) + 1, offsets[K + 1])...));
}

template <typename Out, typename Op, typename... In>
__global__ void strided_elementwise_kernel(ElementwiseArgs args, Op op) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < args.numel; i += stride) {
    strided_element<Out, Op, In...>(args, op, i, std::index_sequence_for<In...>());
  }
}

// Blocks for `work` items of a grid-stride loop: enough to fill the device several times
// over, no more (each thread then loops).
inline unsigned int elementwise_grid(int64_t work) {
  const int64_t wanted = (work + kElementwiseBlock - 1) / kElementwiseBlock;
  const int64_t cap = static_cast<int64_t>(device_properties().multiProcessorCount) * 8;
  return static_cast<unsigned int>(std::max<int64_t>(1, std::min(wanted, cap)));
}

// Note [Deterministic atomic sums]
// Kernels that add into shared locations with atomics (index_add, scatter_add, the backward of
// embedding and max_pool2d) add in whatever order the threads run: a floating-point sum can
// then differ in its last bits from run to run. Under tg::use_deterministic_algorithms(true)
// such a kernel, a grid-stride loop, is launched as one thread, which makes every addition
// in the order of the loop: the same bits on every run (and the CPU kernel's order, where that
// loops the same way). It is slow on a GPU (no parallelism); it exists for reproducibility
// and tests, as PyTorch's deterministic paths trade speed for it. Integer sums are exact in
// any order and keep the parallel launch.
struct LaunchShape {
  unsigned int grid, block;
};
inline LaunchShape atomic_sum_shape(int64_t work, bool floating_sum) {
  if (floating_sum && are_deterministic_algorithms_enabled()) return {1, 1};
  return {elementwise_grid(work), static_cast<unsigned int>(kElementwiseBlock)};
}

template <typename T>
inline constexpr size_t widest_size() {
  return sizeof(T);
}
template <typename T, typename U, typename... Rest>
inline constexpr size_t widest_size() {
  return std::max(sizeof(T), widest_size<U, Rest...>());
}

template <typename T>
bool vectorizable(const ElementwiseArgs& args, int k, int vec) {
  return args.data[k] == nullptr || reinterpret_cast<uintptr_t>(args.data[k]) % (sizeof(T) * static_cast<size_t>(vec)) == 0;
}

template <typename T>
bool holds(const ElementwiseArgs& args, int k) {
  return args.data[k] == nullptr || args.dtypes[k] == dtype_of<T>;
}

template <typename T>
VectorSource<T> vector_source(const ElementwiseArgs& args, int k) {
  return VectorSource<T>{reinterpret_cast<const T*>(args.data[k]),
                         args.data[k] == nullptr ? scalar_as<opmath_t<T>>(args.scalars[k]) : opmath_t<T>()};
}

template <typename Out, typename... In, typename Op, size_t... K>
void launch_elementwise_impl(const ElementwiseArgs& args, const Op& op, std::index_sequence<K...>) {
  constexpr int kVec = static_cast<int>(16 / widest_size<Out, In...>()) > 0
                           ? static_cast<int>(16 / widest_size<Out, In...>())
                           : 1;
  TG_INTERNAL_ASSERT(args.noperands == 1 + static_cast<int>(sizeof...(In)) && holds<Out>(args, 0) &&
                         (holds<In>(args, static_cast<int>(K) + 1) && ...),
                     "elementwise operands do not hold the kernel's types");
  const cudaStream_t stream = getCurrentCUDAStream();
  const bool fast = args.contiguous && vectorizable<Out>(args, 0, kVec) &&
                    (vectorizable<In>(args, static_cast<int>(K) + 1, kVec) && ...);
  if (fast) {
    const unsigned int grid = elementwise_grid((args.numel + kVec - 1) / kVec);
    launch_kernel(vectorized_elementwise_kernel<kVec, Out, Op, In...>, grid, kElementwiseBlock, 0, stream, args.numel,
                  reinterpret_cast<Out*>(args.data[0]), op, vector_source<In>(args, static_cast<int>(K) + 1)...);
  } else {
    launch_kernel(strided_elementwise_kernel<Out, Op, In...>, elementwise_grid(args.numel), kElementwiseBlock, 0,
                  stream, args, op);
  }
  TG_CUDA_KERNEL_LAUNCH_CHECK();
}

// See the top of this file. Precondition: args.noperands == 1 + sizeof...(In), and every
// operand with data holds its storage type (an internal error otherwise).
template <typename Out, typename... In, typename Op>
void launch_elementwise(const ElementwiseArgs& args, const Op& op) {
  if (args.numel == 0) return;
  launch_elementwise_impl<Out, In...>(args, op, std::index_sequence_for<In...>());
}

}  // namespace tg::cuda
