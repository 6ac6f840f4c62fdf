// CUDA kernels of clamp, gelu and silu, of fill and of the on-device copy. They compute as the
// CPU kernels do (kernels/cpu/unary_kernels.cpp, activation_kernels.cpp): the floating
// functions in the opmath type (float for float16 and bfloat16). See Note [One kernel per
// family and dtype] in binary_ops.cu. The unary family of schemas/pointwise.yaml (neg, exp,
// ...) is declared with `kernel:` and runs in pointwise_math_ops.cu.
#include <type_traits>

#include "activation_math.h"
#include "cuda/elementwise.cuh"
#include "cuda/launch.cuh"
#include "cuda/pointwise_ops.h"
#include "scalar_math.h"

namespace tg::cuda {

namespace {

// min(max(x, lo), hi): hi wins when lo > hi; a NaN input or bound gives NaN.
template <typename T>
struct ClampFunctor {
  T lo, hi;
  bool has_lo, has_hi;

  __device__ T operator()(T x) const {
    if (has_lo) x = math::max_propagate_nan(x, lo);
    if (has_hi) x = math::min_propagate_nan(x, hi);
    return x;
  }
};

template <typename T>
struct ActivationFunctor {
  ActivationOp op;
  __device__ T operator()(T x) const {
    return op == ActivationOp::Silu ? activation::silu(x) : activation::gelu(x, op == ActivationOp::GeluTanh);
  }
};

template <typename T>
struct FillFunctor {
  T value;
  __device__ T operator()() const { return value; }
};

template <typename T>
struct IdentityFunctor {
  __device__ T operator()(T x) const { return x; }
};

// dst = src converted, for any pair of dtypes: the source dtype is read at run time (one
// kernel per destination dtype).
template <typename Out>
__global__ void convert_kernel(ElementwiseArgs args) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < args.numel; i += stride) {
    int64_t linear = i, out_offset = 0, in_offset = 0;
    for (int d = 0; d < args.ndim; ++d) {
      const int64_t index = linear % args.sizes[d];
      linear /= args.sizes[d];
      out_offset += index * args.strides[0][d];
      in_offset += index * args.strides[1][d];
    }
    *reinterpret_cast<Out*>(args.data[0] + out_offset) = load_as<Out>(args.data[1] + in_offset, args.dtypes[1]);
  }
}

}  // namespace

void launch_activation(ActivationOp op, ScalarType dtype, const ElementwiseArgs& args) {
  dispatch_device_dtype<kFloatingTypes>(dtype, op == ActivationOp::Silu ? "silu" : "gelu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T>(args, ActivationFunctor<opmath_t<T>>{op});
  });
}

void launch_clamp(ScalarType dtype, const ElementwiseArgs& args, std::optional<ScalarValue> lo,
                  std::optional<ScalarValue> hi) {
  dispatch_device_dtype<kNumericTypes>(dtype, "clamp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    const ClampFunctor<M> functor{lo ? scalar_as<M>(*lo) : M(), hi ? scalar_as<M>(*hi) : M(), lo.has_value(),
                                  hi.has_value()};
    launch_elementwise<T, T>(args, functor);
  });
}

void launch_fill(ScalarType dtype, const ElementwiseArgs& args, ScalarValue value) {
  dispatch_device_dtype<kAllTypes>(dtype, "fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // Converted to T first, as the CPU's fill_ stores value.to<scalar_t>().
    launch_elementwise<T>(args, FillFunctor<opmath_t<T>>{convert<opmath_t<T>>(scalar_as<T>(value))});
  });
}

void launch_copy(ScalarType dtype, const ElementwiseArgs& args) {
  dispatch_device_dtype<kAllTypes>(dtype, "copy_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (args.dtypes[1] == dtype || args.data[1] == nullptr) {
      launch_elementwise<T, T>(args, IdentityFunctor<opmath_t<T>>{});
    } else if (args.numel > 0) {
      launch_kernel(convert_kernel<T>, elementwise_grid(args.numel), kElementwiseBlock, 0, getCurrentCUDAStream(),
                    args);
      TG_CUDA_KERNEL_LAUNCH_CHECK();
    }
  });
}

}  // namespace tg::cuda
