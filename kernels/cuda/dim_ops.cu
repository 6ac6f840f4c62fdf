// CUDA kernels of the operators along one dim (dim_ops.h): softmax, log_softmax and their
// backward, cumsum and topk, over contiguous [outer, size, inner] blocks.
//   - softmax over the last dim (inner == 1): a warp per row, or a whole block for rows longer
//     than kLongRow, combining max and sum with __shfl_xor_sync (then shared memory across
//     warps); 16-bit floats accumulate in float. Other dims: a thread per (o, i) column, whose
//     neighbours read the neighbouring columns, so loads coalesce.
//   - cumsum: a thread per (o, i) scans its column in order, as the CPU does.
//   - topk: a warp per (o, i) slice selects the k elements one after another: the j-th is the
//     first, in the CPU's order, of the elements after the (j-1)-th; each lane scans a strided
//     share and the warp combines with shuffles. O(k * size / 32) per slice, no size limit.
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cuda/block_reduce.cuh"
#include "cuda/dim_ops.h"
#include "cuda/elementwise.cuh"
#include "cuda/launch.cuh"
#include "scalar_math.h"

namespace tg::cuda {

namespace {

constexpr int64_t kLongRow = 1024;  // rows longer than this get a whole block

struct MaxOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return math::max_propagate_nan(a, b);
  }
};

// blockDim = (kThreads, kElementwiseBlock / kThreads): threadIdx.y picks the row.
template <int kThreads, typename T>
__global__ void softmax_rows_kernel(const T* in, T* out, int64_t rows, int64_t size, bool log) {
  using Acc = opmath_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.y;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y; row < rows; row += step) {
    const T* x = in + row * size;
    T* y = out + row * size;
    Acc max = -std::numeric_limits<Acc>::infinity();
    for (int64_t k = threadIdx.x; k < size; k += kThreads) max = math::max_propagate_nan(max, convert<Acc>(x[k]));
    max = row_allreduce<kThreads>(max, MaxOp{});
    Acc sum = 0;
    for (int64_t k = threadIdx.x; k < size; k += kThreads) sum += ::exp(convert<Acc>(x[k]) - max);
    sum = row_allreduce<kThreads>(sum, SumOp{});
    if (log) {
      const Acc shift = max + ::log(sum);
      for (int64_t k = threadIdx.x; k < size; k += kThreads) y[k] = convert<T>(convert<Acc>(x[k]) - shift);
    } else {
      const Acc scale = Acc(1) / sum;
      for (int64_t k = threadIdx.x; k < size; k += kThreads) y[k] = convert<T>(::exp(convert<Acc>(x[k]) - max) * scale);
    }
  }
}

template <typename T>
__global__ void softmax_columns_kernel(const T* in, T* out, DimBlocks b, bool log) {
  using Acc = opmath_t<T>;
  const int64_t columns = b.outer * b.inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < columns; c += step) {
    const int64_t base = (c / b.inner) * b.size * b.inner + c % b.inner;
    const T* x = in + base;
    T* y = out + base;
    Acc max = -std::numeric_limits<Acc>::infinity();
    for (int64_t k = 0; k < b.size; ++k) max = math::max_propagate_nan(max, convert<Acc>(x[k * b.inner]));
    Acc sum = 0;
    for (int64_t k = 0; k < b.size; ++k) sum += ::exp(convert<Acc>(x[k * b.inner]) - max);
    const Acc shift = max + ::log(sum), scale = Acc(1) / sum;
    for (int64_t k = 0; k < b.size; ++k) {
      const Acc v = convert<Acc>(x[k * b.inner]);
      y[k * b.inner] = convert<T>(log ? v - shift : ::exp(v - max) * scale);
    }
  }
}

// dot = sum(g y) (softmax) or sum(g) (log_softmax) along the row; see dim_ops.h.
template <typename Acc>
__device__ inline Acc softmax_grad(Acc g, Acc y, Acc dot, bool log) {
  return log ? g - ::exp(y) * dot : y * (g - dot);
}

template <int kThreads, typename T>
__global__ void softmax_backward_rows_kernel(const T* grad, const T* output, T* grad_input, int64_t rows, int64_t size,
                                             bool log) {
  using Acc = opmath_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.y;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y; row < rows; row += step) {
    const T* g = grad + row * size;
    const T* y = output + row * size;
    T* gx = grad_input + row * size;
    Acc dot = 0;
    for (int64_t k = threadIdx.x; k < size; k += kThreads) {
      dot += log ? convert<Acc>(g[k]) : convert<Acc>(g[k]) * convert<Acc>(y[k]);
    }
    dot = row_allreduce<kThreads>(dot, SumOp{});
    for (int64_t k = threadIdx.x; k < size; k += kThreads) {
      gx[k] = convert<T>(softmax_grad(convert<Acc>(g[k]), convert<Acc>(y[k]), dot, log));
    }
  }
}

template <typename T>
__global__ void softmax_backward_columns_kernel(const T* grad, const T* output, T* grad_input, DimBlocks b, bool log) {
  using Acc = opmath_t<T>;
  const int64_t columns = b.outer * b.inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < columns; c += step) {
    const int64_t base = (c / b.inner) * b.size * b.inner + c % b.inner;
    Acc dot = 0;
    for (int64_t k = 0; k < b.size; ++k) {
      const int64_t at = base + k * b.inner;
      dot += log ? convert<Acc>(grad[at]) : convert<Acc>(grad[at]) * convert<Acc>(output[at]);
    }
    for (int64_t k = 0; k < b.size; ++k) {
      const int64_t at = base + k * b.inner;
      grad_input[at] = convert<T>(softmax_grad(convert<Acc>(grad[at]), convert<Acc>(output[at]), dot, log));
    }
  }
}

template <typename T>
__global__ void cumsum_kernel(const T* in, T* out, DimBlocks b) {
  using Acc = opmath_t<T>;
  const int64_t columns = b.outer * b.inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < columns; c += step) {
    const int64_t base = (c / b.inner) * b.size * b.inner + c % b.inner;
    Acc running = Acc(0);
    for (int64_t k = 0; k < b.size; ++k) {
      running = math::add(running, convert<Acc>(in[base + k * b.inner]));
      out[base + k * b.inner] = convert<T>(running);
    }
  }
}

// An element of a topk slice; index < 0 means none.
template <typename T>
struct Candidate {
  T value;
  int64_t index;
};

// Whether a comes before b: the larger (smaller) value first, NaN first when largest, last
// when smallest; ties by index (kernels/cpu/scan_sort_kernels.cpp).
template <typename T>
__device__ inline bool comes_before(const Candidate<T>& a, const Candidate<T>& b, bool largest) {
  const bool a_nan = math::is_nan(a.value), b_nan = math::is_nan(b.value);
  if (a_nan || b_nan) {
    if (a_nan && b_nan) return a.index < b.index;
    return largest ? a_nan : b_nan;
  }
  if (a.value != b.value) return largest ? a.value > b.value : a.value < b.value;
  return a.index < b.index;
}

// blockDim = (32, kElementwiseBlock / 32): a warp per slice.
template <typename S>
__global__ void topk_kernel(const S* in, S* values, int64_t* indices, DimBlocks b, int64_t k, bool largest) {
  using T = opmath_t<S>;
  const int lane = static_cast<int>(threadIdx.x);
  const int64_t slices = b.outer * b.inner;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.y;
  for (int64_t slice = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y; slice < slices; slice += step) {
    const int64_t o = slice / b.inner, i = slice % b.inner;
    const S* x = in + o * b.size * b.inner + i;
    Candidate<T> previous{T(), -1};
    for (int64_t j = 0; j < k; ++j) {
      Candidate<T> best{T(), -1};
      for (int64_t r = lane; r < b.size; r += 32) {
        const Candidate<T> c{convert<T>(x[r * b.inner]), r};
        const bool after_previous = previous.index < 0 || comes_before(previous, c, largest);
        if (after_previous && (best.index < 0 || comes_before(c, best, largest))) best = c;
      }
#pragma unroll
      for (int delta = 16; delta > 0; delta /= 2) {
        const Candidate<T> other{shfl_xor(best.value, delta), shfl_xor(best.index, delta)};
        if (other.index >= 0 && (best.index < 0 || comes_before(other, best, largest))) best = other;
      }
      if (lane == 0) {
        const int64_t at = (o * k + j) * b.inner + i;
        values[at] = convert<S>(best.value);
        indices[at] = best.index;
      }
      previous = best;
    }
  }
}

}  // namespace

void launch_softmax(ScalarType dtype, bool log, const void* in, void* out, DimBlocks b, const char* op) {
  dispatch_device_dtype<kFloatingTypes>(dtype, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (b.outer * b.size * b.inner == 0) return;
    const cudaStream_t stream = getCurrentCUDAStream();
    const T* x = static_cast<const T*>(in);
    T* y = static_cast<T*>(out);
    if (b.inner > 1) {
      launch_kernel(softmax_columns_kernel<T>, elementwise_grid(b.outer * b.inner), kElementwiseBlock, 0, stream, x, y,
                    b, log);
    } else if (b.size <= kLongRow) {
      launch_kernel(softmax_rows_kernel<32, T>, elementwise_grid(b.outer * 32), dim3(32, kElementwiseBlock / 32), 0,
                    stream, x, y, b.outer, b.size, log);
    } else {
      launch_kernel(softmax_rows_kernel<kElementwiseBlock, T>, elementwise_grid(b.outer * kElementwiseBlock),
                    kElementwiseBlock, 0, stream, x, y, b.outer, b.size, log);
    }
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void launch_softmax_backward(ScalarType dtype, bool log, const void* grad_output, const void* output,
                             void* grad_input, DimBlocks b, const char* op) {
  dispatch_device_dtype<kFloatingTypes>(dtype, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (b.outer * b.size * b.inner == 0) return;
    const cudaStream_t stream = getCurrentCUDAStream();
    const T* g = static_cast<const T*>(grad_output);
    const T* y = static_cast<const T*>(output);
    T* gx = static_cast<T*>(grad_input);
    if (b.inner > 1) {
      launch_kernel(softmax_backward_columns_kernel<T>, elementwise_grid(b.outer * b.inner), kElementwiseBlock, 0,
                    stream, g, y, gx, b, log);
    } else if (b.size <= kLongRow) {
      launch_kernel(softmax_backward_rows_kernel<32, T>, elementwise_grid(b.outer * 32),
                    dim3(32, kElementwiseBlock / 32), 0, stream, g, y, gx, b.outer, b.size, log);
    } else {
      launch_kernel(softmax_backward_rows_kernel<kElementwiseBlock, T>, elementwise_grid(b.outer * kElementwiseBlock),
                    kElementwiseBlock, 0, stream, g, y, gx, b.outer, b.size, log);
    }
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void launch_cumsum(ScalarType dtype, const void* in, void* out, DimBlocks b) {
  dispatch_device_dtype<kNumericTypes>(dtype, "cumsum", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (b.outer * b.size * b.inner == 0) return;
    launch_kernel(cumsum_kernel<T>, elementwise_grid(b.outer * b.inner), kElementwiseBlock, 0, getCurrentCUDAStream(),
                  static_cast<const T*>(in), static_cast<T*>(out), b);
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void launch_topk(ScalarType dtype, const void* in, void* values, int64_t* indices, DimBlocks b, int64_t k,
                 bool largest) {
  dispatch_device_dtype<kNumericTypes>(dtype, "topk", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (b.outer * b.inner == 0 || k == 0) return;
    launch_kernel(topk_kernel<T>, elementwise_grid(b.outer * b.inner * 32), dim3(32, kElementwiseBlock / 32), 0,
                  getCurrentCUDAStream(), static_cast<const T*>(in), static_cast<T*>(values), indices, b, k, largest);
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace tg::cuda
