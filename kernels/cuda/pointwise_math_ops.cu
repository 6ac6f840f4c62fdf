// CUDA kernels of the pointwise kernel families: one kernel per dtype for each family (the
// floating unary functions, the binary ones, the unary operators, comparisons and arithmetic
// operators of pointwise.yaml), the
// operator a run-time field (Note [One kernel per
// family and dtype] in binary_ops.cu). The formulas are the CPU kernels' (the generated
// PointwiseKernels.h, from the schemas' `kernel:` keys).
#include "cuda/elementwise.cuh"
#include "cuda/pointwise_math_ops.h"

namespace tg::cuda {

namespace {

template <typename T>
struct FloatUnaryFunctor {
  FloatUnaryOp op;
  __device__ T operator()(T x) const { return math::float_unary(op, x); }
};

template <typename T>
struct UnaryFunctor {
  UnaryOp op;
  __device__ T operator()(T x) const { return math::unary(op, x); }
};

template <typename T>
struct CompareFunctor {
  CompareOp op;
  __device__ bool operator()(T x, T y) const { return math::compare(op, x, y); }
};

template <typename T>
struct BinaryFunctor {
  BinaryOp op;
  T alpha;  // 1 for an operator without alpha
  __device__ T operator()(T x, T y) const { return math::binary(op, x, y, alpha); }
};

template <typename T>
struct MathBinaryFunctor {
  MathBinaryOp op;
  __device__ T operator()(T x, T y) const { return math::math_binary(op, x, y); }
};

}  // namespace

void launch_float_unary(FloatUnaryOp op, ScalarType dtype, const ElementwiseArgs& args) {
  dispatch_device_dtype<kFloatingTypes>(dtype, float_unary_name(op), [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T>(args, FloatUnaryFunctor<opmath_t<T>>{op});
  });
}

void launch_math_binary(MathBinaryOp op, ScalarType dtype, const ElementwiseArgs& args) {
  const auto body = [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T, T>(args, MathBinaryFunctor<opmath_t<T>>{op});
  };
  if (math_binary_floating_only(op)) {
    dispatch_device_dtype<kFloatingTypes>(dtype, math_binary_name(op), body);
  } else {
    dispatch_device_dtype<kAllTypes>(dtype, math_binary_name(op), body);
  }
}

void launch_unary(UnaryOp op, ScalarType dtype, const ElementwiseArgs& args) {
  const auto body = [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T>(args, UnaryFunctor<opmath_t<T>>{op});
  };
  if (unary_floating_only(op)) {
    dispatch_device_dtype<kFloatingTypes>(dtype, unary_name(op), body);
  } else {
    dispatch_device_dtype<kNumericTypes>(dtype, unary_name(op), body);
  }
}

void launch_binary(BinaryOp op, ScalarType dtype, const ElementwiseArgs& args, ScalarValue alpha) {
  const auto body = [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T, T>(args, BinaryFunctor<opmath_t<T>>{op, scalar_as<opmath_t<T>>(alpha)});
  };
  if (binary_floating_only(op)) {
    dispatch_device_dtype<kFloatingTypes>(dtype, binary_name(op), body);
  } else if (binary_numeric_only(op)) {
    dispatch_device_dtype<kNumericTypes>(dtype, binary_name(op), body);
  } else {
    dispatch_device_dtype<kAllTypes>(dtype, binary_name(op), body);
  }
}

void launch_compare(CompareOp op, ScalarType dtype, const ElementwiseArgs& args) {
  dispatch_device_dtype<kAllTypes>(dtype, compare_name(op), [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<bool, T, T>(args, CompareFunctor<opmath_t<T>>{op});
  });
}

}  // namespace tg::cuda
