// ExpandingArray<D>: D values given either as D values or as one value meaning "D times",
// as LibTorch's torch::ExpandingArray (kernel_size(3) == kernel_size({3, 3}) for D = 2).
// Invariant: exactly D values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

#include "core/array_ref.h"
#include "core/error.h"

namespace tg {

template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  ExpandingArray(std::initializer_list<T> list) : ExpandingArray(ArrayRef<T>(list)) {}  // NOLINT
  ExpandingArray(std::vector<T> list) : ExpandingArray(ArrayRef<T>(list)) {}             // NOLINT
  ExpandingArray(ArrayRef<T> values) {                                                   // NOLINT
    TG_CHECK_VALUE(values.size() == D, "Expected ", D, " values, but instead got ", values.size());
    for (size_t i = 0; i < D; ++i) values_[i] = values[i];
  }
  ExpandingArray(T single_size) { values_.fill(single_size); }  // NOLINT: "D times"
  ExpandingArray(const std::array<T, D>& values) : values_(values) {}  // NOLINT

  std::array<T, D>& operator*() { return values_; }
  const std::array<T, D>& operator*() const { return values_; }
  std::array<T, D>* operator->() { return &values_; }
  const std::array<T, D>* operator->() const { return &values_; }
  operator ArrayRef<T>() const { return ArrayRef<T>(values_); }  // NOLINT
  size_t size() const noexcept { return D; }
  const T& operator[](size_t i) const { return values_[i]; }

 private:
  std::array<T, D> values_;
};

template <size_t D, typename T>
std::ostream& operator<<(std::ostream& stream, const ExpandingArray<D, T>& array) {
  if (D == 1) return stream << array[0];
  stream << '[';
  for (size_t i = 0; i < D; ++i) stream << (i ? ", " : "") << array[i];
  return stream << ']';
}

}  // namespace tg
