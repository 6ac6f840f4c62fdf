// CUDA kernels of arange, of the random fills (uniform_, normal_) and of dropout's mask.
#include <cmath>
#include <numbers>
#include <type_traits>

#include "cuda/elementwise.cuh"
#include "cuda/factory_ops.h"
#include "cuda/launch.cuh"
#include "cuda/philox.cuh"

namespace tg::cuda {

namespace {

template <typename T, typename Acc>
__global__ void arange_kernel(T* data, int64_t numel, Acc start, Acc step) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < numel; i += stride) {
    data[i] = convert<T>(start + static_cast<Acc>(i) * step);
  }
}

// Element i draws from Philox(seed, counter = (i, offset)): uniform takes 53 bits, normal
// takes two uniforms for one Box-Muller draw, r cos(2 pi u2) with r = sqrt(-2 ln u1).
template <typename T, bool kNormal>
__global__ void random_kernel(T* data, int64_t numel, uint64_t seed, uint64_t offset, double a, double b) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < numel; i += stride) {
    const Philox4x32 r = philox4x32_10(seed, static_cast<uint64_t>(i), offset);
    double value;
    if constexpr (kNormal) {
      const double u1 = 1.0 - uniform_double(r.x[0], r.x[1]);  // in (0, 1]
      const double u2 = uniform_double(r.x[2], r.x[3]);
      value = a + b * ::sqrt(-2.0 * ::log(u1)) * ::cos(2.0 * std::numbers::pi * u2);
    } else {
      value = a + b * uniform_double(r.x[0], r.x[1]);  // a = from, b = to - from
    }
    data[i] = convert<T>(value);
  }
}

__global__ void bernoulli_mask_kernel(bool* data, int64_t numel, uint64_t seed, uint64_t offset, double p) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < numel; i += stride) {
    const Philox4x32 r = philox4x32_10(seed, static_cast<uint64_t>(i), offset);
    data[i] = uniform_double(r.x[0], r.x[1]) >= p;
  }
}

template <bool kNormal>
void launch_random(ScalarType dtype, void* data, int64_t numel, PhiloxState state, double a, double b,
                   const char* op) {
  dispatch_device_dtype<kFloatingTypes>(dtype, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (numel == 0) return;
    launch_kernel(random_kernel<T, kNormal>, elementwise_grid(numel), kElementwiseBlock, 0, getCurrentCUDAStream(),
                  static_cast<T*>(data), numel, state.seed, state.offset, a, b);
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace

void launch_arange(ScalarType dtype, void* data, int64_t numel, ScalarValue start, ScalarValue step) {
  dispatch_device_dtype<kNumericTypes>(dtype, "arange", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_integral_v<T>, int64_t, double>;
    if (numel == 0) return;
    const Acc first = std::is_integral_v<T> ? static_cast<Acc>(start.i) : static_cast<Acc>(start.f);
    const Acc delta = std::is_integral_v<T> ? static_cast<Acc>(step.i) : static_cast<Acc>(step.f);
    launch_kernel(arange_kernel<T, Acc>, elementwise_grid(numel), kElementwiseBlock, 0, getCurrentCUDAStream(),
                  static_cast<T*>(data), numel, first, delta);
    TG_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

void launch_uniform(ScalarType dtype, void* data, int64_t numel, PhiloxState state, double from, double to) {
  launch_random<false>(dtype, data, numel, state, from, to - from, "uniform_");
}

void launch_normal(ScalarType dtype, void* data, int64_t numel, PhiloxState state, double mean, double std) {
  launch_random<true>(dtype, data, numel, state, mean, std, "normal_");
}

void launch_bernoulli_mask(bool* data, int64_t numel, PhiloxState state, double p) {
  if (numel == 0) return;
  launch_kernel(bernoulli_mask_kernel, elementwise_grid(numel), kElementwiseBlock, 0, getCurrentCUDAStream(), data,
                numel, state.seed, state.offset, p);
  TG_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace tg::cuda
