// ExpandingArray<D>: D values given either as D values ({3, 5}) or as one value that stands
// for all D (3 -> {3, 3}), as LibTorch's torch::ExpandingArray (kernel sizes, strides).
// Invariant: always holds exactly D values.
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
  ExpandingArray(std::vector<T> values) : ExpandingArray(ArrayRef<T>(values)) {}        // NOLINT
  ExpandingArray(ArrayRef<T> values) {                                                  // NOLINT
    TG_CHECK(values.size() == D, "[ExpandingArray] expected ", D, " values, got ", values.size());
    for (size_t i = 0; i < D; ++i) values_[i] = values[i];
  }
  ExpandingArray(T single) { values_.fill(single); }  // NOLINT: implicit like LibTorch
  ExpandingArray(const std::array<T, D>& values) : values_(values) {}  // NOLINT

  std::array<T, D>& operator*() { return values_; }
  const std::array<T, D>& operator*() const { return values_; }
  std::array<T, D>* operator->() { return &values_; }
  const std::array<T, D>* operator->() const { return &values_; }
  operator ArrayRef<T>() const { return ArrayRef<T>(values_.data(), D); }  // NOLINT
  const T& operator[](size_t i) const { return values_[i]; }
  size_t size() const noexcept { return D; }
  std::vector<T> vec() const { return std::vector<T>(values_.begin(), values_.end()); }

 private:
  std::array<T, D> values_;
};

template <size_t D, typename T>
std::ostream& operator<<(std::ostream& stream, const ExpandingArray<D, T>& array) {
  if (D == 1) return stream << array[0];
  stream << "[";
  for (size_t i = 0; i < D; ++i) stream << (i ? ", " : "") << array[i];
  return stream << "]";
}

}  // namespace tg
