// CUDA kernels of the indexing operators (index_ops.h). A thread per element written (select,
// gather, tril/triu) or read (index_add, scatter_add, whose additions to one element from
// several threads go through atomic_add, in no fixed order: float sums may differ from the
// CPU's in the last bits, integer ones are exact; see Note [Deterministic atomic sums]). Kernels that only move elements are
// compiled once per element size (1, 2, 4, 8 bytes), not per dtype.
#include <cstdint>
#include <type_traits>

#include "cuda/atomic_add.cuh"
#include "cuda/cuda_device.h"
#include "cuda/elementwise.cuh"
#include "element_size_dispatch.h"
#include "cuda/index_check.cuh"
#include "cuda/index_ops.h"
#include "cuda/launch.cuh"

namespace tg::cuda {

namespace {

template <typename U>
__global__ void index_select_kernel(const U* in, U* out, const int64_t* index, DimBlocks b, int64_t count,
                                    IndexErrorRecord* errors) {
  const int64_t total = b.outer * count * b.inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t i = e % b.inner, k = (e / b.inner) % count, o = e / (b.inner * count);
    if (!index_in_bounds(errors, IndexedOp::kIndexSelect, index[k], b.size)) continue;
    out[e] = in[(o * b.size + index[k]) * b.inner + i];
  }
}

template <typename S>
__global__ void index_add_kernel(S* out, const S* source, const int64_t* index, DimBlocks b, int64_t count,
                                 opmath_t<S> alpha, IndexErrorRecord* errors) {
  const int64_t total = b.outer * count * b.inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t i = e % b.inner, k = (e / b.inner) % count, o = e / (b.inner * count);
    if (!index_in_bounds(errors, IndexedOp::kIndexAdd, index[k], b.size)) continue;
    atomic_add(out + (o * b.size + index[k]) * b.inner + i, math::mul(alpha, convert<opmath_t<S>>(source[e])));
  }
}

// Offsets (in elements) of position p in the indexed tensor and in the other one; `valid` is
// false when index[p] is out of bounds (recorded in `errors`).
struct GatherOffsets {
  int64_t indexed, other;
  bool valid;
};

__device__ inline GatherOffsets gather_offsets(const GatherArgs& a, const int64_t* index, int64_t p, IndexedOp op,
                                               IndexErrorRecord* errors) {
  GatherOffsets offsets{0, 0, index_in_bounds(errors, op, index[p], a.bound, a.dim)};
  int64_t rest = p;
  for (int d = a.ndim - 1; d >= 0; --d) {
    const int64_t position = rest % a.sizes[d];
    rest /= a.sizes[d];
    offsets.indexed += (d == a.dim ? index[p] : position) * a.indexed_strides[d];
    offsets.other += position * a.other_strides[d];
  }
  return offsets;
}

template <typename U>
__global__ void gather_kernel(const U* self, U* out, const int64_t* index, GatherArgs a, IndexErrorRecord* errors) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < a.numel; p += step) {
    const GatherOffsets offsets = gather_offsets(a, index, p, IndexedOp::kGather, errors);
    if (!offsets.valid) continue;
    out[offsets.other] = self[offsets.indexed];
  }
}

template <typename S>
__global__ void scatter_add_kernel(S* out, const S* src, const int64_t* index, GatherArgs a,
                                   IndexErrorRecord* errors) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < a.numel; p += step) {
    const GatherOffsets offsets = gather_offsets(a, index, p, IndexedOp::kScatterAdd, errors);
    if (!offsets.valid) continue;
    atomic_add(out + offsets.indexed, convert<opmath_t<S>>(src[offsets.other]));
  }
}

template <typename U>
__global__ void triangle_kernel(const U* in, U* out, int64_t total, int64_t rows, int64_t cols, int64_t diagonal,
                                bool lower) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t j = e % cols, i = (e / cols) % rows;
    const bool keep = lower ? j - i <= diagonal : j - i >= diagonal;
    out[e] = keep ? in[e] : U(0);  // zero bits are zero in every dtype
  }
}

}  // namespace

void launch_index_select(size_t element_size, const void* in, void* out, const int64_t* index, DimBlocks in_blocks,
                         int64_t count) {
  const int64_t total = in_blocks.outer * count * in_blocks.inner;
  if (total == 0) return;
  dispatch_element_size(element_size, [&](auto tag) {
    using U = typename decltype(tag)::type;
    launch_kernel(index_select_kernel<U>, elementwise_grid(total), kElementwiseBlock, 0, getCurrentCUDAStream(),
                  static_cast<const U*>(in), static_cast<U*>(out), index, in_blocks, count,
                  index_error_record(current_device()));
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void launch_index_add(ScalarType dtype, void* out, const void* source, const int64_t* index, DimBlocks out_blocks,
                      int64_t count, ScalarValue alpha) {
  dispatch_device_dtype<kAllTypes>(dtype, "index_add", [&](auto tag) {
    using S = typename decltype(tag)::type;
    const int64_t total = out_blocks.outer * count * out_blocks.inner;
    if (total == 0) return;
    const LaunchShape shape = atomic_sum_shape(total, !std::is_integral_v<S>);
    launch_kernel(index_add_kernel<S>, shape.grid, shape.block, 0, getCurrentCUDAStream(), static_cast<S*>(out), static_cast<const S*>(source), index, out_blocks, count,
                  scalar_as<opmath_t<S>>(alpha), index_error_record(current_device()));
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void launch_gather(size_t element_size, const void* self, void* out, const int64_t* index, const GatherArgs& args) {
  if (args.numel == 0) return;
  dispatch_element_size(element_size, [&](auto tag) {
    using U = typename decltype(tag)::type;
    launch_kernel(gather_kernel<U>, elementwise_grid(args.numel), kElementwiseBlock, 0, getCurrentCUDAStream(),
                  static_cast<const U*>(self), static_cast<U*>(out), index, args, index_error_record(current_device()));
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void launch_scatter_add(ScalarType dtype, void* out, const void* src, const int64_t* index, const GatherArgs& args) {
  dispatch_device_dtype<kAllTypes>(dtype, "scatter_add", [&](auto tag) {
    using S = typename decltype(tag)::type;
    if (args.numel == 0) return;
    const LaunchShape shape = atomic_sum_shape(args.numel, !std::is_integral_v<S>);
    launch_kernel(scatter_add_kernel<S>, shape.grid, shape.block, 0, getCurrentCUDAStream(), static_cast<S*>(out), static_cast<const S*>(src), index, args,
                  index_error_record(current_device()));
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void launch_triangle(size_t element_size, const void* in, void* out, int64_t batches, int64_t rows, int64_t cols,
                     int64_t diagonal, bool lower) {
  const int64_t total = batches * rows * cols;
  if (total == 0) return;
  dispatch_element_size(element_size, [&](auto tag) {
    using U = typename decltype(tag)::type;
    launch_kernel(triangle_kernel<U>, elementwise_grid(total), kElementwiseBlock, 0, getCurrentCUDAStream(),
                  static_cast<const U*>(in), static_cast<U*>(out), total, rows, cols, diagonal, lower);
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace tg::cuda
