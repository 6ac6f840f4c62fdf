// StridedLoop: the iteration every CPU kernel shares. N operands walk one iteration shape;
// operand k's element at index (i_0, ..., i_{d-1}) is at data[k] + sum_d i_d * strides[k][d]
// (byte strides; 0 along a dim where the operand is broadcast).
// See Note [Iteration order] and Note [Coalescing dims].
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/array_ref.h"
#include "core/dim_vector.h"
#include "core/tensor.h"

namespace tg::cpu {

// Note [Iteration order]
// Dims are visited in memory order, not in index order: the dim with the smallest stride is
// innermost. Operands are consulted in priority order (the caller's order; a kernel's output
// comes first, as in PyTorch's TensorIterator): the first one whose strides along two dims
// are both non-zero and differ decides their order; ties and broadcast dims keep index order.
// So a reduction over a transposed input, or a fill of a transposed tensor, still streams
// through memory. Kernels that need index order (first-index ties) must not rely on a loop.
//
// Note [Coalescing dims]
// Before iterating, dims of size 1 are dropped and dims that are neighbours in iteration
// order, d outside e, are merged when every operand has strides[k][d] == strides[k][e] *
// shape[e]: the two dims then walk memory as one. A contiguous (or uniformly broadcast) operand set becomes a single row, so
// the innermost loop is as long as it can be and the per-row overhead is paid rarely.
template <size_t N>
class StridedLoop {
 public:
  using Pointers = std::array<char*, N>;
  using Strides = std::array<int64_t, N>;

  StridedLoop(IntArrayRef shape, const Pointers& data, const std::array<IntArrayRef, N>& byte_strides)
      : data_(data) {
    DimVector order;  // the dims of size > 1, outermost first
    for (size_t d = 0; d < shape.size(); ++d) {
      empty_ = empty_ || shape[d] == 0;
      if (shape[d] != 1) order.push_back(static_cast<int64_t>(d));
    }
    for (size_t i = 1; i < order.size(); ++i) {  // insertion sort: stable, and dims are few
      for (size_t j = i; j > 0 && inner_first(byte_strides, order[j - 1], order[j]); --j) {
        std::swap(order[j - 1], order[j]);
      }
    }
    for (int64_t d : order) {
      if (!shape_.empty() && mergeable(byte_strides, d, shape[d])) {
        shape_[shape_.size() - 1] *= shape[d];
        for (size_t k = 0; k < N; ++k) strides_[k][strides_[k].size() - 1] = byte_strides[k][d];
        continue;
      }
      shape_.push_back(shape[d]);
      for (size_t k = 0; k < N; ++k) strides_[k].push_back(byte_strides[k][d]);
    }
  }

  // Calls row(ptrs, strides, n) once per innermost row, in iteration order: the row's n
  // elements of operand k are at ptrs[k] + j * strides[k], j < n.
  template <typename Row>
  void run(Row&& row) const {
    run_range(data_, 0, numel(), row);
  }

  // The same over the elements [begin, end) of the iteration order only: rows at the ends of
  // the range are partial. Disjoint ranges may run on different threads.
  template <typename Row>
  void run_range(int64_t begin, int64_t end, Row&& row) const {
    run_range(data_, begin, end, row);
  }

  // The same with the operands starting at `data` instead of the constructor's (a launch
  // replays the loop from the addresses it holds: see cpu/launch.h).
  template <typename Row>
  void run_range(const Pointers& data, int64_t begin, int64_t end, Row&& row) const {
    if (empty_ || begin >= end) return;
    const int64_t ndim = static_cast<int64_t>(shape_.size());
    if (ndim == 0) {
      row(data, Strides{}, int64_t{1});
      return;
    }
    Strides inner;
    for (size_t k = 0; k < N; ++k) inner[k] = strides_[k][ndim - 1];
    const int64_t n = shape_[ndim - 1];
    // The position of element `begin`: its index along each dim, and the operands' pointers.
    DimVector counter(static_cast<size_t>(ndim), 0);
    Pointers ptrs = data;
    for (int64_t d = ndim - 1, rest = begin; d >= 0; --d) {
      counter[d] = rest % shape_[d];
      rest /= shape_[d];
      for (size_t k = 0; k < N; ++k) ptrs[k] += counter[d] * strides_[k][d];
    }
    for (int64_t done = begin;;) {
      const int64_t first = counter[ndim - 1];
      const int64_t count = std::min(n - first, end - done);
      row(ptrs, inner, count);
      done += count;
      if (done >= end) return;
      // The next row starts at index 0 of the innermost dim, one step along the others.
      for (size_t k = 0; k < N; ++k) ptrs[k] -= first * inner[k];
      counter[ndim - 1] = 0;
      for (int64_t d = ndim - 2; d >= 0; --d) {
        if (++counter[d] < shape_[d]) {
          for (size_t k = 0; k < N; ++k) ptrs[k] += strides_[k][d];
          break;
        }
        counter[d] = 0;
        for (size_t k = 0; k < N; ++k) ptrs[k] -= strides_[k][d] * (shape_[d] - 1);
      }
    }
  }

  // The operands' base addresses given to the constructor.
  const Pointers& data() const { return data_; }

  // The number of elements iterated (the product of the shape).
  int64_t numel() const {
    int64_t total = 1;
    for (int64_t size : shape_) total *= size;
    return empty_ ? 0 : total;
  }

  // Whether operand k is written at distinct addresses along every iterated dim (no stride
  // 0), so that disjoint ranges of the iteration never touch the same element of it.
  bool distinct_elements(size_t k) const {
    for (int64_t stride : strides_[k]) {
      if (stride == 0) return false;
    }
    return true;
  }

 private:
  // Whether dim `outer`, now outside dim `inner`, should move inside it. See Note [Iteration order].
  static bool inner_first(const std::array<IntArrayRef, N>& byte_strides, int64_t outer, int64_t inner) {
    for (size_t k = 0; k < N; ++k) {
      const int64_t s_outer = byte_strides[k][outer], s_inner = byte_strides[k][inner];
      if (s_outer == 0 || s_inner == 0 || s_outer == s_inner) continue;
      return s_outer < s_inner;
    }
    return false;
  }

  // Whether input dim d (of size `size`) merges into the last kept dim, its outer neighbour.
  bool mergeable(const std::array<IntArrayRef, N>& byte_strides, size_t d, int64_t size) const {
    for (size_t k = 0; k < N; ++k) {
      if (strides_[k][strides_[k].size() - 1] != byte_strides[k][d] * size) return false;
    }
    return true;
  }

  DimVector shape_;
  std::array<DimVector, N> strides_;
  Pointers data_;
  bool empty_ = false;
};

// A tensor's strides in bytes.
inline DimVector byte_strides(const TensorBase& t) {
  DimVector strides(t.strides());
  const int64_t itemsize = t.element_size();
  for (int64_t& s : strides) s *= itemsize;
  return strides;
}

}  // namespace tg::cpu
