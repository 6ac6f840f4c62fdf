// Elementwise kernels whose op also runs on SIMD vectors: `op` is generic and written like
// the formulas of activation_math.h, so that it accepts float, double and cpu::Vectorized.
// Float tensors that are contiguous and of out's shape go a vector at a time (16 lanes with
// AVX-512, 8 with AVX2 and FMA, else 4: vec::with_widest_vec); every other case (other
// dtypes, strides, broadcasting, conversion) is the scalar elementwise kernel with the same op.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "cpu/loops.h"
#include "cpu/vectorized.h"

namespace tg::cpu {

namespace detail {

// out[j] = op(in[j]...) for j < n, a vector at a time; the tail through a partial vector
// (its spare lanes hold 0, which every formula accepts).
template <typename V, typename Op, typename... In>
TG_VEC_INLINE void vectorized_map(const Op& op, float* out, int64_t n, const In*... in) {
  constexpr int64_t kLanes = vec::kLanes<V>;
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) vec::store(out + j, op(Vectorized<V>(vec::load<V>(in + j))...).v);
  if (j < n) {
    const int64_t tail = n - j;
    vec::store_partial(out + j, op(Vectorized<V>(vec::load_partial<V>(in + j, tail, 0.0f))...).v, tail);
  }
}

// The vector path, when out and every input are contiguous float tensors of one shape.
// Inputs are out itself or disjoint from it (without_partial_overlap): each element is read
// before it is written. Returns false, doing nothing, otherwise.
template <typename Op, typename... Inputs>
bool vectorized_contiguous(const Op& op, const Tensor& out, const Inputs&... inputs) {
  const auto fits = [&](const Tensor& t) { return t.scalar_type() == kFloat && t.is_contiguous(); };
  if (!fits(out) || !((fits(inputs) && inputs.sizes() == out.sizes()) && ...)) return false;
  constexpr size_t kOperands = sizeof...(Inputs) + 1;
  const std::array<char*, kOperands> operands{static_cast<char*>(out.data_ptr()),
                                              static_cast<char*>(inputs.data_ptr())...};
  launch(operands, [op, n = out.numel()](const std::array<char*, kOperands>& p) {
    [&]<size_t... I>(std::index_sequence<I...>) {
      float* dst = reinterpret_cast<float*>(p[0]);
      parallel_for(n, kParallelGrain, [&](int64_t begin, int64_t end) {
        // op itself is compiled for the default target and inlined into each width's copy:
        // see Note [Vectorized across target attributes].
        vec::with_widest_vec([&]<typename V>() TG_VEC_LAMBDA {
          vectorized_map<V>(op, dst + begin, end - begin, reinterpret_cast<const float*>(p[I + 1]) + begin...);
        });
      });
    }(std::make_index_sequence<sizeof...(Inputs)>());
  });
  return true;
}

}  // namespace detail

// unary_kernel and binary_kernel (loops.h) with the vector path for float.
template <typename scalar_t, typename Op>
void vectorized_unary_kernel(const Tensor& out, const Tensor& self, const Op& op) {
  if constexpr (std::is_same_v<scalar_t, float>) {
    if (detail::vectorized_contiguous(op, out, detail::without_partial_overlap(out, self))) return;
  }
  unary_kernel<scalar_t>(out, self, op);
}

template <typename scalar_t, typename Op>
void vectorized_binary_kernel(const Tensor& out, const Tensor& a, const Tensor& b, const Op& op) {
  if constexpr (std::is_same_v<scalar_t, float>) {
    if (detail::vectorized_contiguous(op, out, detail::without_partial_overlap(out, a),
                                      detail::without_partial_overlap(out, b))) {
      return;
    }
  }
  binary_kernel<scalar_t>(out, a, b, op);
}

}  // namespace tg::cpu
