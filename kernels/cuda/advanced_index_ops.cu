// CUDA kernels of advanced indexing (advanced_index_ops.h): a thread per position of R. Without
// accumulate, threads writing one position race and one of them wins (unspecified which, as in
// LibTorch); with it, the additions go through atomic_add (float sums may differ from the CPU's
// in the last bits: Note [Deterministic atomic sums]).
#include <cstdint>
#include <type_traits>

#include "cuda/advanced_index_ops.h"
#include "cuda/atomic_add.cuh"
#include "cuda/cuda_device.h"
#include "cuda/elementwise.cuh"
#include "element_size_dispatch.h"
#include "cuda/index_check.cuh"
#include "cuda/launch.cuh"

namespace tg::cuda {

namespace {

// self's and the other tensor's offsets of position e of R; false when an index value is out
// of bounds (recorded in `errors`).
__device__ inline bool advanced_offsets(const AdvancedIndexArgs& a, int64_t e, IndexedOp op, IndexErrorRecord* errors,
                                        int64_t& self_offset, int64_t& other_offset) {
  int64_t index_offset[kMaxAdvancedIndices] = {};
  self_offset = 0;
  other_offset = 0;
  int64_t rest = e;
  for (int d = a.ndim - 1; d >= 0; --d) {
    const int64_t p = rest % a.sizes[d];
    rest /= a.sizes[d];
    self_offset += p * a.self_strides[d];
    other_offset += p * a.other_strides[d];
    for (int j = 0; j < a.count; ++j) index_offset[j] += p * a.index_strides[j][d];
  }
  for (int j = 0; j < a.count; ++j) {
    const int64_t value = a.index[j][index_offset[j]], size = a.indexed_sizes[j];
    const int64_t wrapped = value < 0 ? value + size : value;
    if (wrapped < 0 || wrapped >= size) {
      index_in_bounds(errors, op, value, size, a.indexed_dims[j]);  // records it
      return false;
    }
    self_offset += wrapped * a.indexed_strides[j];
  }
  return true;
}

template <typename U>
__global__ void advanced_index_kernel(const U* self, U* out, AdvancedIndexArgs a, IndexErrorRecord* errors) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < a.numel; e += step) {
    int64_t from = 0, to = 0;
    if (advanced_offsets(a, e, IndexedOp::kIndex, errors, from, to)) out[to] = self[from];
  }
}

template <typename U>
__global__ void advanced_index_put_kernel(U* self, const U* values, AdvancedIndexArgs a, IndexErrorRecord* errors) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < a.numel; e += step) {
    int64_t to = 0, from = 0;
    if (advanced_offsets(a, e, IndexedOp::kIndexPut, errors, to, from)) self[to] = values[from];
  }
}

template <typename S>
__global__ void advanced_index_accumulate_kernel(S* self, const S* values, AdvancedIndexArgs a,
                                                 IndexErrorRecord* errors) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < a.numel; e += step) {
    int64_t to = 0, from = 0;
    if (advanced_offsets(a, e, IndexedOp::kIndexPut, errors, to, from)) {
      atomic_add(self + to, convert<opmath_t<S>>(values[from]));
    }
  }
}

}  // namespace

void launch_advanced_index(size_t element_size, const void* self, void* out, const AdvancedIndexArgs& args) {
  if (args.numel == 0) return;
  dispatch_element_size(element_size, [&](auto tag) {
    using U = typename decltype(tag)::type;
    launch_kernel(advanced_index_kernel<U>, elementwise_grid(args.numel), kElementwiseBlock, 0,
                  getCurrentCUDAStream(), static_cast<const U*>(self), static_cast<U*>(out), args,
                  index_error_record(current_device()));
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void launch_advanced_index_put(ScalarType dtype, void* self, const void* values, const AdvancedIndexArgs& args,
                               bool accumulate) {
  if (args.numel == 0) return;
  if (!accumulate) {
    dispatch_element_size(element_size(dtype), [&](auto tag) {
      using U = typename decltype(tag)::type;
      launch_kernel(advanced_index_put_kernel<U>, elementwise_grid(args.numel), kElementwiseBlock, 0,
                    getCurrentCUDAStream(), static_cast<U*>(self), static_cast<const U*>(values), args,
                    index_error_record(current_device()));
      TG_CUDA_KERNEL_LAUNCH_CHECK();
    });
    return;
  }
  dispatch_device_dtype<kAllTypes>(dtype, "index_put_", [&](auto tag) {
    using S = typename decltype(tag)::type;
    const LaunchShape shape = atomic_sum_shape(args.numel, !std::is_integral_v<S>);
    launch_kernel(advanced_index_accumulate_kernel<S>, shape.grid, shape.block, 0, getCurrentCUDAStream(),
                  static_cast<S*>(self), static_cast<const S*>(values), args, index_error_record(current_device()));
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace tg::cuda
