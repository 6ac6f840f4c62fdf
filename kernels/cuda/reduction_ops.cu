// CUDA kernels of the reductions: sum, mean, amax, amin (one kernel set per dtype for sum
// and mean, one for amax and amin: see Note [One kernel per family and dtype]), the
// arg-reduction of max.dim and argmax, and var and std (Welford, in double).
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cuda/reduce.cuh"
#include "scalar_math.h"

namespace tg::cuda {

namespace {

// Floating values sum in their opmath type (float for 16- and 32-bit floats, as PyTorch's
// CUDA sum), integral and bool ones in int64, wrapping.
template <typename T>
using sum_acc_t = std::conditional_t<std::is_floating_point_v<T>, T, int64_t>;

template <typename T>
struct SumReducer {
  using acc_t = sum_acc_t<T>;
  __device__ acc_t identity() const { return acc_t(0); }
  __device__ acc_t element(T x, int64_t) const { return static_cast<acc_t>(x); }
  __device__ acc_t combine(acc_t a, acc_t b) const { return math::add(a, b); }
};

template <typename T>
struct ExtremumReducer {
  using acc_t = T;
  bool is_max;
  __device__ T identity() const {
    if constexpr (std::is_floating_point_v<T>) {
      return is_max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    } else {
      return is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    }
  }
  __device__ T element(T x, int64_t) const { return x; }
  __device__ T combine(T a, T b) const { return is_max ? math::max_propagate_nan(a, b) : math::min_propagate_nan(a, b); }
};

template <typename T>
struct ValueIndex {
  T value;
  int64_t index;

  __device__ static ValueIndex shfl_down(ValueIndex v, int delta) {
    return ValueIndex{tg::cuda::shfl_down(v.value, delta), tg::cuda::shfl_down(v.index, delta)};
  }
};

// The maximum and its first position; NaN is larger than every number, and the first NaN wins.
template <typename T>
struct ArgMaxReducer {
  using acc_t = ValueIndex<T>;
  __device__ acc_t identity() const {
    if constexpr (std::is_floating_point_v<T>) {
      return acc_t{-std::numeric_limits<T>::infinity(), std::numeric_limits<int64_t>::max()};
    } else {
      return acc_t{std::numeric_limits<T>::lowest(), std::numeric_limits<int64_t>::max()};
    }
  }
  __device__ acc_t element(T x, int64_t r) const { return acc_t{x, r}; }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    const bool a_nan = math::is_nan(a.value), b_nan = math::is_nan(b.value);
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return a.index < b.index ? a : b;
      return a_nan ? a : b;
    }
    if (a.value != b.value) return a.value > b.value ? a : b;
    return a.index < b.index ? a : b;
  }
};

// out[o] = acc, or acc / divisor for mean.
template <typename Out, typename Acc>
struct ValueWriter {
  Out* out;
  Acc divisor;  // 1 unless mean
  __device__ void operator()(int64_t o, Acc acc) const {
    if constexpr (std::is_floating_point_v<Acc>) acc = acc / divisor;
    out[o] = convert<Out>(acc);
  }
};

template <typename Out, typename T>
struct ArgWriter {
  Out* values;  // may be null (argmax)
  int64_t* indices;
  __device__ void operator()(int64_t o, ValueIndex<T> acc) const {
    indices[o] = acc.index;
    if (values != nullptr) values[o] = convert<Out>(acc.value);
  }
};

// Count, mean and sum of squared deviations of a run of elements (Welford); two runs combine
// by Chan's rule, in any order.
struct WelfordAcc {
  double n, mean, m2;

  __device__ static WelfordAcc shfl_down(WelfordAcc v, int delta) {
    return WelfordAcc{tg::cuda::shfl_down(v.n, delta), tg::cuda::shfl_down(v.mean, delta),
                      tg::cuda::shfl_down(v.m2, delta)};
  }
};

struct WelfordReducer {
  using acc_t = WelfordAcc;
  __device__ acc_t identity() const { return acc_t{0, 0, 0}; }
  __device__ acc_t element(double x, int64_t) const { return acc_t{1, x, 0}; }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const double n = a.n + b.n, delta = b.mean - a.mean;
    return acc_t{n, a.mean + delta * (b.n / n), a.m2 + b.m2 + delta * delta * (a.n * b.n / n)};
  }
};

template <typename Out>
struct VarianceWriter {
  Out* out;
  double divisor;  // max(0, N - correction)
  bool take_sqrt;
  __device__ void operator()(int64_t o, WelfordAcc acc) const {
    const double variance = acc.m2 / divisor;
    out[o] = convert<Out>(take_sqrt ? ::sqrt(variance) : variance);
  }
};

}  // namespace

void launch_variance(ScalarType out_dtype, const ReduceArgs& args, double correction, bool take_sqrt,
                     const char* name) {
  dispatch_device_dtype<kFloatingTypes>(out_dtype, name, [&](auto tag) {
    using Out = typename decltype(tag)::type;
    const double divisor = static_cast<double>(args.reduce_size) - correction;
    launch_reduction<double>(args, WelfordReducer{},
                             VarianceWriter<Out>{static_cast<Out*>(args.out), divisor > 0 ? divisor : 0.0, take_sqrt});
  });
}

void launch_reduce(ReduceOp op, ScalarType dtype, const ReduceArgs& args, const char* name) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean: {
      const auto body = [&](auto tag) {
        using In = typename decltype(tag)::type;
        using T = opmath_t<In>;
        using Acc = sum_acc_t<T>;
        const Acc divisor = op == ReduceOp::Mean ? static_cast<Acc>(args.reduce_size) : Acc(1);
        launch_reduction<In>(args, SumReducer<T>{}, ValueWriter<In, Acc>{static_cast<In*>(args.out), divisor});
      };
      if (op == ReduceOp::Sum) return dispatch_device_dtype<kAllTypes>(dtype, name, body);
      return dispatch_device_dtype<kFloatingTypes>(dtype, name, body);
    }
    case ReduceOp::Max:
    case ReduceOp::Min:
      return dispatch_device_dtype<kAllTypes>(dtype, name, [&](auto tag) {
        using In = typename decltype(tag)::type;
        using T = opmath_t<In>;
        launch_reduction<In>(args, ExtremumReducer<T>{op == ReduceOp::Max}, ValueWriter<In, T>{static_cast<In*>(args.out), T(1)});
      });
    case ReduceOp::ArgMax: {
      const auto body = [&](auto tag) {
        using In = typename decltype(tag)::type;
        using T = opmath_t<In>;
        launch_reduction<In>(args, ArgMaxReducer<T>{}, ArgWriter<In, T>{static_cast<In*>(args.out), args.indices});
      };
      // max.dim takes every dtype, argmax the numeric ones (as on the CPU).
      if (args.out != nullptr) return dispatch_device_dtype<kAllTypes>(dtype, name, body);
      return dispatch_device_dtype<kNumericTypes>(dtype, name, body);
    }
  }
}

}  // namespace tg::cuda
