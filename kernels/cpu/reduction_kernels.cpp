// CPU kernels of the value reductions over a set of dims: sum, mean, amax, amin.
// They fold the input into one accumulator per output element (cpu/reduce.h) and then
// convert the accumulators to the out dtype.
#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>

#include "NativeFunctions.h"
#include "cpu/convert.h"
#include "cpu/reduce.h"
#include "cpu/vec.h"
#include "dtype_dispatch.h"
#include "scalar_math.h"
#include "shape_utils.h"

namespace tg {

namespace {

// Cascade summation: blocks of kBlock elements are summed in 16 independent lanes of the
// input's own type (which the compiler vectorises; each lane adds 4 values, so its rounding
// stays at a few ulps); each lane's block total is added to a lane of Acc, vectorised too,
// for up to kLeaf elements; leaves are combined pairwise, so the error grows with log(n)
// rather than n. No horizontal step runs per block: that is what keeps the loop at memory
// speed.
constexpr int kSumLanes = 16;
constexpr int64_t kSumBlock = 4 * kSumLanes;
constexpr int64_t kSumLeaf = 64 * kSumBlock;

template <typename Acc, typename In>
[[gnu::always_inline]] inline Acc leaf_sum(const In* x, int64_t n) {
  Acc wide[kSumLanes] = {};
  int64_t j = 0;
  for (; j + kSumBlock <= n; j += kSumBlock) {
    In lanes[kSumLanes] = {};
    for (int64_t b = 0; b < kSumBlock; b += kSumLanes) {
      for (int k = 0; k < kSumLanes; ++k) lanes[k] += x[j + b + k];
    }
    for (int k = 0; k < kSumLanes; ++k) wide[k] += static_cast<Acc>(lanes[k]);
  }
  Acc total = 0;
  for (; j < n; ++j) total += static_cast<Acc>(x[j]);
  for (int width = kSumLanes / 2; width > 0; width /= 2) {  // fold the lanes pairwise too
    for (int k = 0; k < width; ++k) wide[k] += wide[k + width];
  }
  return total + wide[0];
}

// The same leaf in AVX2: with 4-lane SSE the float-to-double widening makes the loop
// compute-bound below memory speed (one thread: 16 GB/s against 21 GB/s in AVX2). Same
// operations in the same order, so the same result.
template <typename Acc, typename In>
TG_TARGET_AVX2 Acc leaf_sum_avx2(const In* x, int64_t n) {
  return leaf_sum<Acc>(x, n);
}

// Note [A float leaf in AVX-512]: the leaf above, for float input into double lanes, spelled
// out at one 16-lane vector: `lanes` is one register, the 16 double lanes are two, and the
// lanes fold pairwise in the same order. The same operations in the same order as
// leaf_sum, so the same bits (tests/unit/test_sum_order.cpp checks the order at every
// width). A standalone copy over 16M floats, one thread, medians of 10 at load ~1: the
// compiler's own AVX-512 build of leaf_sum 11-16 GB/s, its AVX2 build 17-18, this one
// 19-20.5, a plain 16-lane sum in float 24.
using Double8 = double __attribute__((vector_size(64)));

// (A template body inlined into the target function: clang rejects vector-returning calls
// written directly in a function with a target attribute at -O0.)
template <typename Vec16>
[[gnu::always_inline]] inline double leaf_sum_float_16_lanes(const float* x, int64_t n) {
  Double8 low{}, high{};  // wide[0..7] and wide[8..15]
  int64_t j = 0;
  for (; j + kSumBlock <= n; j += kSumBlock) {
    Vec16 lanes{};
    for (int64_t b = 0; b < kSumBlock; b += kSumLanes) lanes += cpu::vec::load<Vec16>(x + j + b);
    low += __builtin_convertvector(__builtin_shufflevector(lanes, lanes, 0, 1, 2, 3, 4, 5, 6, 7), Double8);
    high += __builtin_convertvector(__builtin_shufflevector(lanes, lanes, 8, 9, 10, 11, 12, 13, 14, 15), Double8);
  }
  double total = 0;
  for (; j < n; ++j) total += static_cast<double>(x[j]);
  Double8 wide = low + high;  // width 8, then 4, 2, 1 as leaf_sum folds
  for (int width = 4; width > 0; width /= 2) {
    for (int k = 0; k < width; ++k) wide[k] += wide[k + width];
  }
  return total + wide[0];
}

TG_TARGET_AVX512 double leaf_sum_float_avx512(const float* x, int64_t n) {
  return leaf_sum_float_16_lanes<cpu::vec::Vec16>(x, n);
}

template <typename Acc, typename In>
Acc pairwise_leaf(const In* x, int64_t n) {
  if constexpr (std::is_same_v<In, float> && std::is_same_v<Acc, double>) {
    if (cpu::vec::capability() == cpu::vec::Capability::kAvx512) return leaf_sum_float_avx512(x, n);
  }
  return cpu::vec::has_avx2_fma() ? leaf_sum_avx2<Acc>(x, n) : leaf_sum<Acc>(x, n);
}

template <typename Acc, typename In>
Acc pairwise_sum(const In* x, int64_t n) {
  if (n <= kSumLeaf) return pairwise_leaf<Acc>(x, n);
  const int64_t half = (n / 2 + kSumBlock - 1) / kSumBlock * kSumBlock;
  return pairwise_sum<Acc>(x, half) + pairwise_sum<Acc>(x + half, n - half);
}

// Sums floating values in double (pairwise along contiguous rows) and integral and bool ones
// in int64, wrapping as PyTorch's integer sums do.
template <typename In>
struct SumReducer {
  using acc_t = std::conditional_t<std::is_floating_point_v<In>, double, int64_t>;
  acc_t combine(acc_t acc, In x) const { return math::add(acc, static_cast<acc_t>(x)); }
  acc_t reduce_row(acc_t acc, const In* x, int64_t n) const
    requires std::is_floating_point_v<In>
  {
    return acc + pairwise_sum<acc_t>(x, n);
  }
};

template <typename T, bool kMax>
struct ExtremumReducer {
  using acc_t = T;
  static T identity() {
    if constexpr (std::is_floating_point_v<T>) {
      return kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    } else {
      return kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    }
  }
  T combine(T acc, T x) const {
    return kMax ? math::max_propagate_nan(acc, x) : math::min_propagate_nan(acc, x);
  }
};

// Folds self over `mask` into one accumulator per element of `out`, then writes
// finish(accumulator) converted to out's dtype. out is contiguous (the kernel contract).
// One launch (cpu/launch.h): the accumulators are its own scratch, made per run.
template <typename In, typename Reducer, typename Finish>
void reduce_to_output(const Tensor& self, const DimMask& mask, const Tensor& out, const Reducer& reducer,
                      typename Reducer::acc_t identity, const Finish& finish) {
  using Acc = typename Reducer::acc_t;
  using Loop = cpu::ReductionLoop<In, Reducer>;
  std::optional<Loop> loop = self.numel() == 0 ? std::nullopt : std::optional<Loop>(Loop(self, mask));
  const std::array<char*, 2> operands{static_cast<char*>(out.data_ptr()), static_cast<char*>(self.data_ptr())};
  cpu::launch(operands, [loop = std::move(loop), reducer, identity, finish, n = out.numel(),
                         out_size = out.element_size(), out_dtype = out.scalar_type()](const std::array<char*, 2>& p) {
    const std::unique_ptr<Acc[]> acc(new Acc[static_cast<size_t>(n)]);  // not std::vector: Acc may be bool
    std::fill_n(acc.get(), n, identity);
    if (loop) loop->run(p[1], acc.get(), reducer);
    for (int64_t i = 0; i < n; ++i) acc[i] = finish(acc[i]);
    cpu::store_row(p[0], out_size, out_dtype, acc.get(), n);
  });
}

template <bool kMax>
void extremum_out(const char* op, const Tensor& self, IntArrayRef dim, const Tensor& out) {
  const DimMask mask = make_dim_mask(dim, self.dim(), op);
  TG_DISPATCH_ALL_TYPES(self.scalar_type(), op, [&] {
    using T = opmath_t<scalar_t>;
    using Reducer = ExtremumReducer<T, kMax>;
    reduce_to_output<T>(self, mask, out, Reducer{}, Reducer::identity(), [](T v) { return v; });
  });
}

}  // namespace

void native::sum_out_cpu(const Tensor& self, OptionalIntArrayRef dim, bool /*keepdim*/,
                         std::optional<ScalarType> /*dtype*/, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  const DimMask mask = make_dim_mask(dim, self.dim(), "sum");
  TG_DISPATCH_ALL_TYPES(out.scalar_type(), "sum", [&] {
    using In = opmath_t<scalar_t>;  // elements convert to the out dtype first, as PyTorch's sum(dtype=)
    using Acc = typename SumReducer<In>::acc_t;
    reduce_to_output<In>(self, mask, out, SumReducer<In>{}, Acc(0), [](Acc v) { return v; });
  });
}

// The mean of an empty reduction is NaN (0 / 0), as in PyTorch.
void native::mean_out_cpu(const Tensor& self, OptionalIntArrayRef dim, bool /*keepdim*/,
                          std::optional<ScalarType> /*dtype*/, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  const DimMask mask = make_dim_mask(dim, self.dim(), "mean");
  const double count = static_cast<double>(reduced_numel(self.sizes(), mask));
  TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), "mean", [&] {
    using In = opmath_t<scalar_t>;
    reduce_to_output<In>(self, mask, out, SumReducer<In>{}, 0.0, [count](double v) { return v / count; });
  });
}

void native::amax_out_cpu(const Tensor& self, IntArrayRef dim, bool /*keepdim*/, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  extremum_out<true>("amax", self, dim, out);
}

void native::amin_out_cpu(const Tensor& self, IntArrayRef dim, bool /*keepdim*/, const Tensor& out) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  extremum_out<false>("amin", self, dim, out);
}

}  // namespace tg
