// CUDA kernels of where, the derivatives of gelu, silu and relu (threshold_backward),
// masked_fill and dropout's masked scaling. Each computes as its CPU kernel does
// (kernels/cpu/compare_kernels.cpp, ...): in the opmath type of its dtype. The arithmetic
// operators (add, sub, mul, div, pow) are the `binary` kernel family (pointwise_math_ops.cu).
// See Note [One kernel per family and dtype].
#include "activation_math.h"
#include "cuda/elementwise.cuh"
#include "cuda/pointwise_ops.h"

namespace tg::cuda {

// Note [One kernel per family and dtype]
// The operators of a family (arithmetic, comparisons, unary functions) share one kernel per
// dtype, and the operator is a run-time field of the functor. Every thread of a launch takes
// the same branch, so the switch costs a few instructions per element in kernels bound by
// memory bandwidth, while the number of kernels nvcc compiles (for each GPU architecture)
// drops by the number of operators in the family.

namespace {

template <typename T>
struct WhereFunctor {
  __device__ T operator()(bool condition, T x, T y) const { return condition ? x : y; }
};

template <typename T>
struct ActivationBackwardFunctor {
  ActivationOp op;
  __device__ T operator()(T g, T x) const {
    return op == ActivationOp::Silu ? activation::silu_backward(g, x)
                                    : activation::gelu_backward(g, x, op == ActivationOp::GeluTanh);
  }
};

template <typename T>
struct ThresholdBackwardFunctor {
  T threshold;
  __device__ T operator()(T g, T x) const { return x <= threshold ? T(0) : g; }
};

template <typename T>
struct MaskedFillFunctor {
  T value;
  __device__ T operator()(T x, bool masked) const { return masked ? value : x; }
};

template <typename T>
struct MaskedScaleFunctor {
  T scale;
  __device__ T operator()(T x, bool keep) const { return keep ? x * scale : T(0); }
};

}  // namespace

void launch_where(ScalarType dtype, const ElementwiseArgs& args) {
  dispatch_device_dtype<kAllTypes>(dtype, "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, bool, T, T>(args, WhereFunctor<opmath_t<T>>{});
  });
}

void launch_activation_backward(ActivationOp op, ScalarType dtype, const ElementwiseArgs& args) {
  const char* name = op == ActivationOp::Silu ? "silu_backward" : "gelu_backward";
  dispatch_device_dtype<kFloatingTypes>(dtype, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T, T>(args, ActivationBackwardFunctor<opmath_t<T>>{op});
  });
}

void launch_threshold_backward(ScalarType dtype, const ElementwiseArgs& args, ScalarValue threshold) {
  dispatch_device_dtype<kNumericTypes>(dtype, "threshold_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T, T>(args, ThresholdBackwardFunctor<opmath_t<T>>{scalar_as<opmath_t<T>>(threshold)});
  });
}

void launch_masked_fill(ScalarType dtype, const ElementwiseArgs& args, ScalarValue value) {
  dispatch_device_dtype<kAllTypes>(dtype, "masked_fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    // Converted to T first, as the CPU stores value.to<scalar_t>().
    launch_elementwise<T, T, bool>(args, MaskedFillFunctor<opmath_t<T>>{convert<opmath_t<T>>(scalar_as<T>(value))});
  });
}

void launch_masked_scale(ScalarType dtype, const ElementwiseArgs& args, double scale) {
  dispatch_device_dtype<kFloatingTypes>(dtype, "dropout", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T, bool>(args, MaskedScaleFunctor<opmath_t<T>>{static_cast<opmath_t<T>>(scale)});
  });
}

}  // namespace tg::cuda
