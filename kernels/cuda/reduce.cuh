// The CUDA reduction kernels (the role of ATen's Reduce.cuh, small). Output o folds the
// elements (o, r) of ReduceArgs with a Reducer:
//
//   acc = combine(... combine(identity, element(x_0, 0)) ..., element(x_{n-1}, n-1))
//
// in an order the launch chooses, so combine must be associative and commutative (which for
// ArgMax means ties go to the lower index). Two layouts:
//   - row: the threads of a row (a warp, or a whole block for long rows) share one output and
//     stride through r; used when the innermost reduced dim is contiguous, so reads coalesce.
//     A warp combines with __shfl_down_sync, a block's warps then through shared memory;
//   - column: each thread of a warp has its own output (adjacent outputs adjacent in memory)
//     and 8 threads split r; shared memory combines them.
// When there are too few outputs to fill the device and the rows are long, r is also split
// across blocks (grid.y): each block writes a partial accumulator, and a second kernel
// combines the partials of each output and writes it.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/allocator.h"
#include "cuda/cuda_check.h"
#include "cuda/cuda_device.h"
#include "cuda/cuda_stream.h"
#include "cuda/device_types.cuh"
#include "cuda/launch.cuh"
#include "cuda/reduce_args.h"

namespace tg::cuda {

inline constexpr int kReduceBlock = 256;
inline constexpr int kColumnThreads = 32;                       // outputs per column block
inline constexpr int kColumnSplit = kReduceBlock / kColumnThreads;  // threads sharing one output

template <typename T>
__device__ inline T shfl_down(T value, int delta) {
  if constexpr (sizeof(T) < sizeof(int)) {
    return static_cast<T>(__shfl_down_sync(0xffffffffu, static_cast<int>(value), delta));
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return static_cast<int64_t>(__shfl_down_sync(0xffffffffu, static_cast<long long>(value), delta));
  } else if constexpr (std::is_arithmetic_v<T>) {
    return __shfl_down_sync(0xffffffffu, value, delta);
  } else {
    return T::shfl_down(value, delta);
  }
}

// Combines the 32 lanes' accumulators into lane 0's.
template <typename Reducer, typename Acc>
__device__ inline Acc warp_reduce(const Reducer& reducer, Acc acc) {
#pragma unroll
  for (int delta = 16; delta > 0; delta /= 2) acc = reducer.combine(acc, shfl_down(acc, delta));
  return acc;
}

__device__ inline int64_t dims_offset(int64_t index, int ndim, const int64_t* sizes, const int64_t* strides) {
  if (ndim == 1) return index * strides[0];
  int64_t offset = 0;
  for (int d = 0; d < ndim; ++d) {
    offset += (index % sizes[d]) * strides[d];
    index /= sizes[d];
  }
  return offset;
}

template <typename In, typename Reducer>
__device__ inline typename Reducer::acc_t fold_range(const ReduceArgs& args, const Reducer& reducer, int64_t o,
                                                     int64_t begin, int64_t end, int64_t step) {
  const In* input = static_cast<const In*>(args.input);
  const int64_t base = dims_offset(o, args.out_ndim, args.out_sizes, args.out_strides);
  typename Reducer::acc_t acc = reducer.identity();
  for (int64_t r = begin; r < end; r += step) {
    const In x = input[base + dims_offset(r, args.red_ndim, args.red_sizes, args.red_strides)];
    acc = reducer.combine(acc, reducer.element(convert<opmath_t<In>>(x), r));
  }
  return acc;
}

// Writes output o, or its partial for split blockIdx.y.
template <typename Writer, typename Acc>
__device__ inline void emit(const Writer& writer, Acc* partials, int64_t splits, int64_t o, const Acc& acc) {
  if (splits == 1) {
    writer(o, acc);
  } else {
    partials[o * splits + blockIdx.y] = acc;
  }
}

// blockDim = (kThreadsPerRow, kReduceBlock / kThreadsPerRow): threadIdx.y picks the row.
template <int kThreadsPerRow, typename In, typename Reducer, typename Writer>
__global__ void reduce_row_kernel(ReduceArgs args, Reducer reducer, Writer writer, int64_t splits, int64_t chunk,
                                  typename Reducer::acc_t* partials) {
  using Acc = typename Reducer::acc_t;
  constexpr int kWarps = kThreadsPerRow / 32;
  alignas(Acc) __shared__ unsigned char scratch[sizeof(Acc) * (kWarps > 1 ? kWarps : 1)];
  Acc* warp_results = reinterpret_cast<Acc*>(scratch);
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * chunk;
  const int64_t end = std::min(begin + chunk, args.reduce_size);
  const int64_t rows_per_grid = static_cast<int64_t>(gridDim.x) * blockDim.y;
  // Every thread of a block runs the same iterations (kThreadsPerRow > 32 means one row per block).
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y; o < args.num_outputs; o += rows_per_grid) {
    Acc acc = fold_range<In>(args, reducer, o, begin + threadIdx.x, end, kThreadsPerRow);
    acc = warp_reduce(reducer, acc);
    if constexpr (kWarps > 1) {
      const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
      if (lane == 0) warp_results[warp] = acc;
      __syncthreads();
      if (warp == 0) {
        acc = lane < kWarps ? warp_results[lane] : reducer.identity();
        acc = warp_reduce(reducer, acc);
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) emit(writer, partials, splits, o, acc);
  }
}

// blockDim = (kColumnThreads, kColumnSplit): threadIdx.x picks the output, threadIdx.y its share of r.
template <typename In, typename Reducer, typename Writer>
__global__ void reduce_column_kernel(ReduceArgs args, Reducer reducer, Writer writer, int64_t splits, int64_t chunk,
                                     typename Reducer::acc_t* partials) {
  using Acc = typename Reducer::acc_t;
  alignas(Acc) __shared__ unsigned char scratch[sizeof(Acc) * kReduceBlock];
  Acc* shares = reinterpret_cast<Acc*>(scratch);
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * chunk;
  const int64_t end = std::min(begin + chunk, args.reduce_size);
  const int64_t outputs_per_grid = static_cast<int64_t>(gridDim.x) * kColumnThreads;
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * kColumnThreads; first < args.num_outputs;
       first += outputs_per_grid) {
    const int64_t o = first + threadIdx.x;
    Acc acc = reducer.identity();
    if (o < args.num_outputs) acc = fold_range<In>(args, reducer, o, begin + threadIdx.y, end, kColumnSplit);
    shares[threadIdx.y * kColumnThreads + threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && o < args.num_outputs) {
      for (int k = 1; k < kColumnSplit; ++k) acc = reducer.combine(acc, shares[k * kColumnThreads + threadIdx.x]);
      emit(writer, partials, splits, o, acc);
    }
    __syncthreads();
  }
}

template <typename Reducer, typename Writer>
__global__ void combine_partials_kernel(int64_t num_outputs, int64_t splits, Reducer reducer, Writer writer,
                                        const typename Reducer::acc_t* partials) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < num_outputs; o += stride) {
    typename Reducer::acc_t acc = reducer.identity();
    for (int64_t s = 0; s < splits; ++s) acc = reducer.combine(acc, partials[o * splits + s]);
    writer(o, acc);
  }
}

inline unsigned int capped_blocks(int64_t wanted) {
  const int64_t cap = static_cast<int64_t>(device_properties().multiProcessorCount) * 8;
  return static_cast<unsigned int>(std::max<int64_t>(1, std::min(wanted, cap)));
}

// How many blocks share each output's r: enough to give the device ~4 blocks per SM when the
// outputs alone do not, with at least `min_chunk` elements per block.
inline int64_t reduce_splits(int64_t blocks, int64_t reduce_size, int64_t min_chunk) {
  const int64_t target = static_cast<int64_t>(device_properties().multiProcessorCount) * 4;
  if (blocks >= target || reduce_size < 2 * min_chunk) return 1;
  const int64_t by_device = (target + blocks - 1) / blocks;
  const int64_t by_size = reduce_size / min_chunk;
  return std::max<int64_t>(1, std::min({by_device, by_size, int64_t{65535}}));
}

// Runs the reduction of the top of this file; In is the input's storage type.
template <typename In, typename Reducer, typename Writer>
void launch_reduction(const ReduceArgs& args, const Reducer& reducer, const Writer& writer) {
  using Acc = typename Reducer::acc_t;
  if (args.num_outputs == 0) return;
  const cudaStream_t stream = getCurrentCUDAStream();
  const bool row = (args.red_ndim > 0 && args.red_strides[0] == 1) || args.out_ndim == 0 || args.out_strides[0] != 1;
  const bool long_rows = args.reduce_size >= 4 * kReduceBlock;
  const int64_t outputs_per_block = row ? (long_rows ? 1 : kReduceBlock / 32) : kColumnThreads;
  const unsigned int blocks = capped_blocks((args.num_outputs + outputs_per_block - 1) / outputs_per_block);
  const int64_t splits = reduce_splits(blocks, args.reduce_size, row ? 4096 : 256);
  const int64_t chunk = (args.reduce_size + splits - 1) / splits;
  DataPtr partials;
  if (splits > 1) {
    partials = get_allocator(kCUDA)->allocate(static_cast<size_t>(args.num_outputs * splits) * sizeof(Acc));
  }
  Acc* partial_data = static_cast<Acc*>(partials.get());
  const dim3 grid(blocks, static_cast<unsigned int>(splits));
  if (!row) {
    launch_kernel(reduce_column_kernel<In, Reducer, Writer>, grid, dim3(kColumnThreads, kColumnSplit), 0, stream, args,
                  reducer, writer, splits, chunk, partial_data);
  } else if (long_rows) {
    launch_kernel(reduce_row_kernel<kReduceBlock, In, Reducer, Writer>, grid, dim3(kReduceBlock, 1), 0, stream, args,
                  reducer, writer, splits, chunk, partial_data);
  } else {
    launch_kernel(reduce_row_kernel<32, In, Reducer, Writer>, grid, dim3(32, kReduceBlock / 32), 0, stream, args,
                  reducer, writer, splits, chunk, partial_data);
  }
  TG_CUDA_KERNEL_LAUNCH_CHECK();
  if (splits > 1) {
    launch_kernel(combine_partials_kernel<Reducer, Writer>,
                  capped_blocks((args.num_outputs + kReduceBlock - 1) / kReduceBlock), kReduceBlock, 0, stream,
                  args.num_outputs, splits, reducer, writer, partial_data);
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  }
}

}  // namespace tg::cuda
