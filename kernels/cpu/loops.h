// Elementwise CPU kernels: out[i] = op(a[i], b[i], ...) over inputs broadcast to out's shape.
// The inputs may have any strides (0 where broadcast) and any dtypes: each is converted on
// load to the type of the op's matching parameter, and the op's result is converted on store
// to out's dtype. So the op's signature states the compute types:
//
//   cpu::elementwise_kernel(out, [](float x, float y) { return x * y; }, a, b);
//
// `out` may be one of the inputs itself (in-place variants): element i is read before it is
// written. An input that overlaps out in any other way is copied first. Each loop runs as a
// launch (cpu/launch.h), so a recorded graph can replay it without the kernel around it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/tensor.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "cpu/launch.h"
#include "cpu/parallel.h"
#include "cpu/streaming_store.h"
#include "cpu/strided_loop.h"
#include "cpu/vec.h"
#include "dtype_dispatch.h"
#include "shape_utils.h"

namespace tg::cpu {

// Rows are processed in chunks of this many elements, the size of the conversion buffers.
inline constexpr int64_t kRowChunk = 256;

// Uninitialised room for one chunk of T.
template <typename T>
struct RowBuffer {
  alignas(64) char bytes[kRowChunk * sizeof(T)];
  T* data() { return reinterpret_cast<T*>(bytes); }
};

// One input's view of the current chunk as elements of T: the tensor's own memory when it
// holds T, else a converted copy in `buffer`.
template <typename T>
struct RowInput {
  const char* ptr = nullptr;
  int64_t stride = 0;
  RowBuffer<T> buffer;

  void prepare(const char* src, int64_t src_stride, ScalarType src_dtype, int64_t n) {
    if (src_dtype == dtype_of<T>) {
      ptr = src;
      stride = src_stride;
    } else {
      load_row(buffer.data(), src, src_stride, src_dtype, n);
      ptr = buffer.bytes;
      stride = sizeof(T);
    }
  }
  T operator[](int64_t j) const { return *reinterpret_cast<const T*>(ptr + j * stride); }
  bool contiguous() const { return stride == static_cast<int64_t>(sizeof(T)); }
  const T* typed() const { return reinterpret_cast<const T*>(ptr); }
};

// The parameter and result types of a (non-generic) callable.
template <typename F>
struct function_traits : function_traits<decltype(&F::operator())> {};
template <typename C, typename R, typename... A>
struct function_traits<R (C::*)(A...) const> {
  using result = std::decay_t<R>;
  using args = std::tuple<std::decay_t<A>...>;
};
template <typename C, typename R, typename... A>
struct function_traits<R (C::*)(A...)> : function_traits<R (C::*)(A...) const> {};
template <typename R, typename... A>
struct function_traits<R (*)(A...)> {
  using result = std::decay_t<R>;
  using args = std::tuple<std::decay_t<A>...>;
};

namespace detail {

// Note [Local op copies]
// The loops call a local copy of the op and read pointers held in locals, never through a
// reference to the caller's objects: the compiler cannot prove that stores to out leave
// referenced memory (the constants an op captured, like sub's alpha, or a captured tuple of
// pointers) unchanged, so it would reload it every element and not vectorise. A local whose
// address never escapes is known to be untouched. For the same reason unary_kernel and
// binary_kernel capture the op by value.

// `input` itself, or a contiguous copy when it shares memory with `out` other than as the
// very same elements (same start, shape and strides).
[[gnu::always_inline]] inline Tensor without_partial_overlap(const Tensor& out, const Tensor& input) {
  if (!input.is_alias_of(out)) return input;
  if (input.data_ptr() == out.data_ptr() && input.sizes() == out.sizes() && input.strides() == out.strides()) {
    return input;
  }
  return contiguous_copy(input);
}

// out[j] = op(in[j]...) for begin <= j < end. Everything the loop reads is a parameter or a
// local, never memory a store to out might change: see Note [Local op copies].
template <typename R, typename Op>
void contiguous_loop(const Op& op_ref, R* out, int64_t begin, int64_t end) {
  const Op op = op_ref;
  for (int64_t j = begin; j < end; ++j) out[j] = op();
}

// The loop over operands that share no memory with out: __restrict lets the compiler
// vectorise it without a run-time overlap test (whose outcome, inside these large inlined
// kernels, it sometimes sent to the scalar copy of the loop).
template <typename R, typename Op, typename... In>
void contiguous_loop_disjoint(const Op& op, R* __restrict out, int64_t begin, int64_t end,
                              const In* __restrict... in) {
  for (int64_t j = begin; j < end; ++j) out[j] = op(in[j]...);
}

// An input is either out itself (in-place variants) or shares no memory with it (the caller
// copied partial overlaps away: detail::without_partial_overlap). In place, with out the
// first input as in add_, the loop reads out itself.
template <typename R, typename Op, typename First, typename... Rest>
void contiguous_loop(const Op& op_ref, R* out, int64_t begin, int64_t end, const First* first, const Rest*... rest) {
  const Op op = op_ref;
  const void* const out_address = out;
  const bool in_place = first == out_address || ((rest == out_address) || ...);
  if (!in_place) return contiguous_loop_disjoint(op, out, begin, end, first, rest...);
  if constexpr (std::is_same_v<First, R>) {
    if (first == out_address) {
      for (int64_t j = begin; j < end; ++j) out[j] = op(out[j], rest[j]...);
      return;
    }
  }
  for (int64_t j = begin; j < end; ++j) out[j] = op(first[j], rest[j]...);
}

// Note [Streaming large outputs]
// A contiguous elementwise op whose output is larger than the caches would keep writes it a
// chunk at a time: each chunk is computed into a buffer on the stack (the same vectorised
// loop), then leaves with streaming stores (cpu/streaming_store.h), which skip the read of
// every output line a plain store makes first. An add of 16M floats moves a quarter fewer
// bytes: a standalone loop went from 16.6 to 20-22 GB/s on this machine. Below the
// threshold the output stays in the caches for the next kernel.
inline constexpr int64_t kStreamingMinBytes = int64_t{16} << 20;
inline constexpr int64_t kStreamChunkBytes = 1024;

template <typename R, typename Op, typename... In>
[[gnu::always_inline]] inline void contiguous_loop_streamed_body(const Op& op_ref, R* out, int64_t begin, int64_t end,
                                                                 const In*... in) {
  static_assert(kStreamChunkBytes % sizeof(R) == 0);
  constexpr int64_t kChunk = kStreamChunkBytes / static_cast<int64_t>(sizeof(R));
  const Op op = op_ref;
  // Plain stores up to the first 64-byte boundary, so that every chunk fills whole lines.
  const auto address = reinterpret_cast<uintptr_t>(out + begin);
  const int64_t head = address % 64 == 0 ? 0 : static_cast<int64_t>((64 - address % 64) / sizeof(R));
  int64_t j = std::min(end, begin + head);
  for (int64_t k = begin; k < j; ++k) out[k] = op(in[k]...);
  alignas(64) char bytes[kStreamChunkBytes];
  R* __restrict chunk = reinterpret_cast<R*>(bytes);
  for (; j + kChunk <= end; j += kChunk) {
    for (int64_t k = 0; k < kChunk; ++k) chunk[k] = op(in[j + k]...);  // in place too: read first
    store_streaming(out + j, chunk, kStreamChunkBytes);
  }
  for (; j < end; ++j) out[j] = op(in[j]...);
  stream_fence();
}

// The chunk loop compiled for AVX2 (without FMA, so that no multiply-add is fused where the
// other paths round twice: the bits do not depend on the output's size), and as is.
template <typename R, typename Op, typename... In>
TG_TARGET_AVX2_NO_FMA void contiguous_loop_streamed_avx2(const Op& op, R* out, int64_t begin, int64_t end,
                                                         const In*... in) {
  contiguous_loop_streamed_body(op, out, begin, end, in...);
}

template <typename R, typename Op, typename... In>
void contiguous_loop_streamed(const Op& op, R* out, int64_t begin, int64_t end, const In*... in) {
  if (vec::has_avx2_fma()) return contiguous_loop_streamed_avx2(op, out, begin, end, in...);
  contiguous_loop_streamed_body(op, out, begin, end, in...);
}

// out[j] = op(inputs[j]...) for j < m when every input row is contiguous, or for a binary
// op when one input is a scalar (stride 0: a broadcast number, or a 0-dim tensor) and the
// other contiguous: the scalar is loaded once, so the loop vectorises like the contiguous
// one. Returns false, doing nothing, for other strides.
template <typename R, typename Op, typename... Inputs>
bool contiguous_row(const Op& op_ref, R* out, int64_t m, const Inputs&... inputs) {
  const Op op = op_ref;  // a local copy: see Note [Local op copies]
  if ((inputs.contiguous() && ...)) {
    contiguous_loop(op, out, 0, m, inputs.typed()...);
    return true;
  }
  if constexpr (sizeof...(Inputs) == 2) {
    const auto& [a, b] = std::tie(inputs...);
    if (a.contiguous() && b.stride == 0) {
      const auto* x = a.typed();
      const auto y = b[0];
      for (int64_t j = 0; j < m; ++j) out[j] = op(x[j], y);
      return true;
    }
    if (a.stride == 0 && b.contiguous()) {
      const auto x = a[0];
      const auto* y = b.typed();
      for (int64_t j = 0; j < m; ++j) out[j] = op(x, y[j]);
      return true;
    }
  }
  return false;
}

template <typename Op, size_t... I>
void elementwise_row(const Op& op_ref, const std::array<char*, sizeof...(I) + 1>& ptrs,
                     const std::array<int64_t, sizeof...(I) + 1>& strides,
                     const std::array<ScalarType, sizeof...(I) + 1>& dtypes, int64_t n, std::index_sequence<I...>) {
  using Traits = function_traits<Op>;
  using R = typename Traits::result;
  const Op op = op_ref;  // see Note [Local op copies]
  std::tuple<RowInput<std::tuple_element_t<I, typename Traits::args>>...> inputs;
  for (int64_t begin = 0; begin < n; begin += kRowChunk) {
    const int64_t m = std::min(kRowChunk, n - begin);
    (std::get<I>(inputs).prepare(ptrs[I + 1] + begin * strides[I + 1], strides[I + 1], dtypes[I + 1], m), ...);
    char* dst = ptrs[0] + begin * strides[0];
    if (dtypes[0] != dtype_of<R>) {
      RowBuffer<R> result;
      for (int64_t j = 0; j < m; ++j) result.data()[j] = op(std::get<I>(inputs)[j]...);
      store_row(dst, strides[0], dtypes[0], result.data(), m);
    } else if (strides[0] == static_cast<int64_t>(sizeof(R)) &&
               contiguous_row(op, reinterpret_cast<R*>(dst), m, std::get<I>(inputs)...)) {
    } else {
      for (int64_t j = 0; j < m; ++j) *reinterpret_cast<R*>(dst + j * strides[0]) = op(std::get<I>(inputs)[j]...);
    }
  }
}

// The contiguous fast path: every operand contiguous, of out's shape, holding exactly the
// op's types. Returns false when it does not apply.
template <typename Op, size_t... I>
bool elementwise_contiguous(const Op& op, const Tensor& out, const std::array<Tensor, sizeof...(I)>& inputs,
                            std::index_sequence<I...>) {
  using Traits = function_traits<Op>;
  using R = typename Traits::result;
  if (!out.is_contiguous() || out.scalar_type() != dtype_of<R>) return false;
  const bool all_match = ((inputs[I].is_contiguous() && inputs[I].sizes() == out.sizes() &&
                           inputs[I].scalar_type() == dtype_of<std::tuple_element_t<I, typename Traits::args>>) &&
                          ...);
  if (!all_match) return false;
  const std::array<char*, sizeof...(I) + 1> operands{static_cast<char*>(out.data_ptr()),
                                                      static_cast<char*>(inputs[I].data_ptr())...};
  launch(operands, [op, n = out.numel()](const std::array<char*, sizeof...(I) + 1>& p) {
    R* dst = reinterpret_cast<R*>(p[0]);
    [[maybe_unused]] const auto src =
        std::make_tuple(reinterpret_cast<const std::tuple_element_t<I, typename Traits::args>*>(p[I + 1])...);
    const bool streaming = n * static_cast<int64_t>(sizeof(R)) >= kStreamingMinBytes;
    parallel_for(n, kParallelGrain, [&](int64_t begin, int64_t end) {
      if (streaming) {
        contiguous_loop_streamed(op, dst, begin, end, std::get<I>(src)...);
      } else {
        contiguous_loop(op, dst, begin, end, std::get<I>(src)...);
      }
    });
  });
  return true;
}

// Outputs of at most this many elements: see elementwise_tiny.
inline constexpr int64_t kTinyNumel = 16;

// The path of the smallest outputs (a loss, a 1-element tensor in scalar code, the autograd
// engine's scalar gradients): every operand contiguous, of out's shape, holding the op's
// types, and each input either disjoint from out or out itself. No input copies, no launch
// and no thread team: that machinery is most of the instructions of a 1-element op. Nothing
// may be recording launches (a recorder needs the launch). Returns false when it does not apply.
template <typename Op, typename... Inputs, size_t... I>
bool elementwise_tiny(const Op& op, const Tensor& out, std::index_sequence<I...>, const Inputs&... inputs) {
  using Traits = function_traits<Op>;
  using R = typename Traits::result;
  // Read through the impls: the tensors are defined (elementwise_kernel read out's numel, the
  // wrappers checked the inputs), and each Tensor accessor would test that again.
  const TensorImpl& o = *out.unsafeGetTensorImpl();
  const int64_t n = o.numel();
  if (n > kTinyNumel || !o.is_contiguous() || o.dtype() != dtype_of<R> || launch_recorder() != nullptr) return false;
  void* const out_data = o.data();
  const IntArrayRef out_sizes = o.sizes();
  [[maybe_unused]] const auto usable = [&](const Tensor& input, ScalarType want) {
    const TensorImpl* t = input.unsafeGetTensorImpl();
    return t != nullptr && t->dtype() == want && t->is_contiguous() && t->sizes() == out_sizes &&
           (t->storage().get() != o.storage().get() || t->data() == out_data);
  };
  if (!(usable(inputs, dtype_of<std::tuple_element_t<I, typename Traits::args>>) && ...)) return false;
  R* dst = static_cast<R*>(out_data);
  [[maybe_unused]] const auto src = std::make_tuple(
      static_cast<const std::tuple_element_t<I, typename Traits::args>*>(inputs.unsafeGetTensorImpl()->data())...);
  for (int64_t j = 0; j < n; ++j) dst[j] = op(std::get<I>(src)[j]...);  // in place: read before write
  return true;
}

}  // namespace detail

// out[i] = op(inputs[i]...) for every index i of out, with the inputs broadcast to out's
// shape. `op` must have concrete parameter types (not `auto`); they and its result type are
// element types (float, int64_t, bool, Half, ...). out may have any strides, but must not
// write one memory location twice unless every write is the same value (fill_ of an
// expanded tensor).
template <typename Op, typename... Inputs>
void elementwise_kernel(const Tensor& out, const Op& op, const Inputs&... inputs) {
  constexpr size_t kInputs = sizeof...(Inputs);
  static_assert(std::tuple_size_v<typename function_traits<Op>::args> == kInputs,
                "the op takes one parameter per input tensor");
  if (out.numel() == 0) return;
  const auto indices = std::make_index_sequence<kInputs>();
  if (detail::elementwise_tiny(op, out, indices, inputs...)) return;
  const std::array<Tensor, kInputs> in{detail::without_partial_overlap(out, inputs)...};
  if (detail::elementwise_contiguous(op, out, in, indices)) return;

  std::array<char*, kInputs + 1> data;
  std::array<DimVector, kInputs + 1> strides;
  std::array<ScalarType, kInputs + 1> dtypes;
  data[0] = static_cast<char*>(out.data_ptr());
  strides[0] = byte_strides(out);
  dtypes[0] = out.scalar_type();
  for (size_t k = 0; k < kInputs; ++k) {
    data[k + 1] = static_cast<char*>(in[k].data_ptr());
    strides[k + 1] = expand_strides(in[k].sizes(), in[k].strides(), out.sizes());
    for (int64_t& s : strides[k + 1]) s *= in[k].element_size();
    dtypes[k + 1] = in[k].scalar_type();
  }
  std::array<IntArrayRef, kInputs + 1> stride_refs;
  for (size_t k = 0; k <= kInputs; ++k) stride_refs[k] = strides[k];
  StridedLoop<kInputs + 1> loop(out.sizes(), data, stride_refs);
  // Threads take disjoint ranges of out, unless out repeats elements (an expanded out).
  const bool threaded = loop.distinct_elements(0);
  const std::array<char*, kInputs + 1> operands = loop.data();
  launch(operands, [loop = std::move(loop), op, dtypes, threaded](const std::array<char*, kInputs + 1>& p) {
    const auto row = [&](const auto& ptrs, const auto& row_strides, int64_t n) {
      detail::elementwise_row(op, ptrs, row_strides, dtypes, n, std::make_index_sequence<kInputs>());
    };
    if (!threaded) {
      loop.run_range(p, 0, loop.numel(), row);
      return;
    }
    parallel_for(loop.numel(), kParallelGrain,
                 [&](int64_t begin, int64_t end) { loop.run_range(p, begin, end, row); });
  });
}

// The elementwise kernels of an operator dispatched on `scalar_t`: the inputs load as
// opmath_t<scalar_t> (float for float16/bfloat16), op computes in it, and the result is
// stored as out's dtype. `op` may be generic ([](auto x) { ... }).
template <typename scalar_t, typename Op>
void unary_kernel(const Tensor& out, const Tensor& self, const Op& op) {
  using T = opmath_t<scalar_t>;
  elementwise_kernel(out, [op](T x) -> T { return static_cast<T>(op(x)); }, self);
}

template <typename scalar_t, typename Op>
void binary_kernel(const Tensor& out, const Tensor& a, const Tensor& b, const Op& op) {
  using T = opmath_t<scalar_t>;
  elementwise_kernel(out, [op](T x, T y) -> T { return static_cast<T>(op(x, y)); }, a, b);
}

}  // namespace tg::cpu
