// CUDA kernels of layer norm, the NLL loss and embedding's backward (nn_ops.h).
//   - layer norm: a block per row; mean, then the squared deviations from it (two passes over
//     the row, which stays in cache), accumulated in float (double for float64) and combined
//     with row_allreduce. The weight and bias gradients are column sums: a thread per column
//     walks the rows, so neighbouring threads read neighbouring elements.
//   - nll_loss_forward: one block sums the losses and the weights in double, as the CPU does.
//   - nll_loss_backward: a thread per target writes its one gradient element.
//   - embedding_dense_backward: a thread per (index, column) adds its element with atomicAdd;
//     with scale_grad_by_freq a first kernel counts each row's indices.
// Targets and indices are checked on the device (index_check.cuh): a bad one is skipped and
// recorded, and the host reports it at its next check.
#include <cstdint>

#include "core/reduction.h"
#include "cuda/block_reduce.cuh"
#include "cuda/cuda_device.h"
#include "cuda/elementwise.cuh"
#include "cuda/index_check.cuh"
#include "cuda/launch.cuh"
#include "cuda/nn_ops.h"

namespace tg::cuda {

namespace {

constexpr int kRowThreads = 256;

template <typename T>
using acc_t = opmath_t<T>;  // float for __half, __nv_bfloat16 and float; double for double

template <typename T>
__global__ void layer_norm_kernel(const T* x, const acc_t<T>* weight, const acc_t<T>* bias, T* y, T* mean, T* rstd,
                                  int64_t rows, int64_t n, double eps) {
  using Acc = acc_t<T>;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * n;
    T* yr = y + row * n;
    Acc sum = 0;
    for (int64_t j = threadIdx.x; j < n; j += kRowThreads) sum += convert<Acc>(xr[j]);
    const Acc mu = row_allreduce<kRowThreads>(sum, SumOp{}) / static_cast<Acc>(n);
    Acc squares = 0;
    for (int64_t j = threadIdx.x; j < n; j += kRowThreads) {
      const Acc centered = convert<Acc>(xr[j]) - mu;
      squares += centered * centered;
    }
    squares = row_allreduce<kRowThreads>(squares, SumOp{});
    const Acc r = Acc(1) / ::sqrt(squares / static_cast<Acc>(n) + static_cast<Acc>(eps));
    for (int64_t j = threadIdx.x; j < n; j += kRowThreads) {
      const Acc w = weight != nullptr ? weight[j] : Acc(1), b = bias != nullptr ? bias[j] : Acc(0);
      yr[j] = convert<T>((convert<Acc>(xr[j]) - mu) * r * w + b);
    }
    if (threadIdx.x == 0) {
      mean[row] = convert<T>(mu);
      rstd[row] = convert<T>(r);
    }
  }
}

template <typename T>
__global__ void layer_norm_grad_input_kernel(const T* grad_out, const T* x, const acc_t<T>* mean,
                                             const acc_t<T>* rstd, const acc_t<T>* weight, T* grad_input,
                                             int64_t rows, int64_t n) {
  using Acc = acc_t<T>;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * n;
    const T* gr = grad_out + row * n;
    const Acc mu = mean[row], r = rstd[row];
    Acc sum_g = 0, sum_g_xhat = 0;
    for (int64_t j = threadIdx.x; j < n; j += kRowThreads) {
      const Acc gw = convert<Acc>(gr[j]) * (weight != nullptr ? weight[j] : Acc(1));
      sum_g += gw;
      sum_g_xhat += gw * (convert<Acc>(xr[j]) - mu) * r;
    }
    const Acc mean_g = row_allreduce<kRowThreads>(sum_g, SumOp{}) / static_cast<Acc>(n);
    const Acc mean_g_xhat = row_allreduce<kRowThreads>(sum_g_xhat, SumOp{}) / static_cast<Acc>(n);
    for (int64_t j = threadIdx.x; j < n; j += kRowThreads) {
      const Acc gw = convert<Acc>(gr[j]) * (weight != nullptr ? weight[j] : Acc(1));
      const Acc x_hat = (convert<Acc>(xr[j]) - mu) * r;
      grad_input[row * n + j] = convert<T>(r * (gw - mean_g - x_hat * mean_g_xhat));
    }
  }
}

template <typename T>
__global__ void layer_norm_grad_params_kernel(const T* grad_out, const T* x, const acc_t<T>* mean,
                                              const acc_t<T>* rstd, T* grad_weight, T* grad_bias, int64_t rows,
                                              int64_t n) {
  using Acc = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < n; j += step) {
    Acc dw = 0, db = 0;
    for (int64_t row = 0; row < rows; ++row) {
      const Acc g = convert<Acc>(grad_out[row * n + j]);
      dw += g * (convert<Acc>(x[row * n + j]) - mean[row]) * rstd[row];
      db += g;
    }
    if (grad_weight != nullptr) grad_weight[j] = convert<T>(dw);
    if (grad_bias != nullptr) grad_bias[j] = convert<T>(db);
  }
}

// One block: the losses and the weights of the targets not ignored, summed in double.
template <typename T>
__global__ void nll_loss_kernel(const T* self, const int64_t* target, const double* weight, T* output,
                                T* total_weight, int64_t n, int64_t classes, int64_t reduction, int64_t ignore_index,
                                IndexErrorRecord* errors) {
  double sum = 0, weight_sum = 0;
  for (int64_t i = threadIdx.x; i < n; i += kRowThreads) {
    const int64_t t = target[i];
    double loss = 0;
    if (t != ignore_index && index_in_bounds(errors, IndexedOp::kNllLoss, t, classes, ignore_index)) {
      const double w = weight != nullptr ? weight[t] : 1.0;
      loss = -w * convert<double>(self[i * classes + t]);
      weight_sum += w;
    }
    if (reduction == Reduction::None) output[i] = convert<T>(static_cast<opmath_t<T>>(loss));
    sum += loss;
  }
  sum = row_allreduce<kRowThreads>(sum, SumOp{});
  weight_sum = row_allreduce<kRowThreads>(weight_sum, SumOp{});
  if (threadIdx.x == 0) {
    if (reduction == Reduction::Mean) sum /= weight_sum;  // 0 / 0 is NaN, as on the CPU
    if (reduction != Reduction::None) output[0] = convert<T>(static_cast<opmath_t<T>>(sum));
    total_weight[0] = convert<T>(static_cast<opmath_t<T>>(weight_sum));
  }
}

template <typename T>
__global__ void nll_loss_backward_kernel(const double* grad, const int64_t* target, const double* weight,
                                         const double* total_weight, T* grad_input, int64_t n, int64_t classes,
                                         int64_t reduction, int64_t ignore_index, bool per_element,
                                         IndexErrorRecord* errors) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t t = target[i];
    if (t == ignore_index) continue;
    if (!index_in_bounds(errors, IndexedOp::kNllLossBackward, t, classes, ignore_index)) continue;
    const double scale = reduction == Reduction::Mean ? 1.0 / total_weight[0] : 1.0;
    const double w = weight != nullptr ? weight[t] : 1.0;
    const double g = per_element ? grad[i] : grad[0];
    grad_input[i * classes + t] = convert<T>(static_cast<opmath_t<T>>(-w * g * scale));
  }
}

// frequency[k] (zeroed by the caller) = how many of the indices are k.
__global__ void embedding_count_kernel(const int64_t* indices, int64_t count, int64_t num_weights,
                                       unsigned long long* frequency, IndexErrorRecord* errors) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const int64_t k = indices[i];
    if (index_in_bounds(errors, IndexedOp::kEmbeddingBackward, k, num_weights)) atomicAdd(frequency + k, 1ull);
  }
}

template <typename T>
__global__ void embedding_backward_kernel(const T* grad, const int64_t* indices, const int64_t* frequency,
                                          acc_t<T>* sums, int64_t count, int64_t width, int64_t num_weights,
                                          int64_t padding_idx, bool scale_grad_by_freq, IndexErrorRecord* errors) {
  using Acc = acc_t<T>;
  const int64_t total = count * width;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += step) {
    const int64_t i = e / width, j = e % width;
    const int64_t k = indices[i];
    if (!index_in_bounds(errors, IndexedOp::kEmbeddingBackward, k, num_weights)) continue;
    if (k == padding_idx) continue;
    const Acc scale = scale_grad_by_freq ? Acc(1) / static_cast<Acc>(frequency[k]) : Acc(1);
    atomicAdd(sums + k * width + j, convert<Acc>(grad[e]) * scale);
  }
}

}  // namespace

ScalarType acc_dtype(ScalarType dtype) { return dtype == kDouble ? kDouble : kFloat; }

void launch_layer_norm(ScalarType dtype, const void* x, const void* weight, const void* bias, void* y, void* mean,
                       void* rstd, int64_t rows, int64_t n, double eps) {
  dispatch_device_dtype<kFloatingTypes>(dtype, "layer_norm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = acc_t<T>;
    if (rows == 0 || n == 0) return;
    launch_kernel(layer_norm_kernel<T>, elementwise_grid(rows * kRowThreads), kRowThreads, 0, getCurrentCUDAStream(),
                  static_cast<const T*>(x), static_cast<const Acc*>(weight), static_cast<const Acc*>(bias),
                  static_cast<T*>(y), static_cast<T*>(mean), static_cast<T*>(rstd), rows, n, eps);
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void launch_layer_norm_backward(ScalarType dtype, const void* grad_out, const void* x, const void* mean,
                                const void* rstd, const void* weight, void* grad_input, void* grad_weight,
                                void* grad_bias, int64_t rows, int64_t n) {
  dispatch_device_dtype<kFloatingTypes>(dtype, "layer_norm_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = acc_t<T>;
    if (n == 0) return;
    const cudaStream_t stream = getCurrentCUDAStream();
    const T* g = static_cast<const T*>(grad_out);
    const T* xs = static_cast<const T*>(x);
    const Acc* mu = static_cast<const Acc*>(mean);
    const Acc* r = static_cast<const Acc*>(rstd);
    if (grad_input != nullptr && rows > 0) {
      launch_kernel(layer_norm_grad_input_kernel<T>, elementwise_grid(rows * kRowThreads), kRowThreads, 0, stream, g,
                    xs, mu, r, static_cast<const Acc*>(weight), static_cast<T*>(grad_input), rows, n);
      TG_CUDA_KERNEL_LAUNCH_CHECK();
    }
    if (grad_weight != nullptr || grad_bias != nullptr) {
      launch_kernel(layer_norm_grad_params_kernel<T>, elementwise_grid(n), kElementwiseBlock, 0, stream, g, xs, mu, r,
                    static_cast<T*>(grad_weight), static_cast<T*>(grad_bias), rows, n);
      TG_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
}

void launch_nll_loss(ScalarType dtype, const void* self, const int64_t* target, const double* weight, void* output,
                     void* total_weight, int64_t n, int64_t classes, int64_t reduction, int64_t ignore_index) {
  dispatch_device_dtype<kFloatingTypes>(dtype, "nll_loss", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_kernel(nll_loss_kernel<T>, 1, kRowThreads, 0, getCurrentCUDAStream(), static_cast<const T*>(self), target,
                  weight, static_cast<T*>(output), static_cast<T*>(total_weight), n, classes, reduction, ignore_index,
                  index_error_record(current_device()));
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void launch_nll_loss_backward(ScalarType dtype, const double* grad, const int64_t* target, const double* weight,
                              const double* total_weight, void* grad_input, int64_t n, int64_t classes,
                              int64_t reduction, int64_t ignore_index, bool per_element) {
  dispatch_device_dtype<kFloatingTypes>(dtype, "nll_loss_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const cudaStream_t stream = getCurrentCUDAStream();
    if (n * classes == 0) return;
    TG_CUDA_CHECK(cudaMemsetAsync(grad_input, 0, static_cast<size_t>(n * classes) * sizeof(T), stream));
    launch_kernel(nll_loss_backward_kernel<T>, elementwise_grid(n), kElementwiseBlock, 0, stream, grad, target, weight,
                  total_weight, static_cast<T*>(grad_input), n, classes, reduction, ignore_index, per_element,
                  index_error_record(current_device()));
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void launch_embedding_count(const int64_t* indices, int64_t count, int64_t num_weights, int64_t* frequency) {
  if (count == 0) return;
  static_assert(sizeof(unsigned long long) == sizeof(int64_t));
  launch_kernel(embedding_count_kernel, elementwise_grid(count), kElementwiseBlock, 0, getCurrentCUDAStream(), indices,
                count, num_weights, reinterpret_cast<unsigned long long*>(frequency),
                index_error_record(current_device()));
  TG_CUDA_KERNEL_LAUNCH_CHECK();
}

void launch_embedding_backward(ScalarType dtype, const void* grad, const int64_t* indices, const int64_t* frequency,
                               void* sums, int64_t count, int64_t width, int64_t num_weights, int64_t padding_idx,
                               bool scale_grad_by_freq) {
  dispatch_device_dtype<kFloatingTypes>(dtype, "embedding_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (count * width == 0) return;
    const LaunchShape shape = atomic_sum_shape(count * width, true);
    launch_kernel(embedding_backward_kernel<T>, shape.grid, shape.block, 0, getCurrentCUDAStream(),
                  static_cast<const T*>(grad), indices, frequency, static_cast<acc_t<T>*>(sums), count, width,
                  num_weights, padding_idx, scale_grad_by_freq, index_error_record(current_device()));
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace tg::cuda
