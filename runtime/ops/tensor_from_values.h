// Tensors from C++ values, as LibTorch has them: tg::tensor({1.f, 2.f, 3.f}) copies a list,
// tg::from_blob(ptr, {2, 3}) views memory the caller owns.
#pragma once

#include <functional>
#include <iosfwd>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "core/scalar.h"
#include "core/tensor.h"

namespace tg {

// A 1-d tensor with a copy of `values`; dtype from the element type unless options give one.
template <typename T>
Tensor tensor(ArrayRef<T> values, const TensorOptions& options = {});
template <typename T>
Tensor tensor(std::initializer_list<T> values, const TensorOptions& options = {}) {
  return tensor(ArrayRef<T>(values), options);
}
template <typename T>
Tensor tensor(const std::vector<T>& values, const TensorOptions& options = {}) {
  return tensor(ArrayRef<T>(values), options);
}

// A scalar or a nested braced list of scalars, as LibTorch's TensorDataContainer:
// tg::tensor(1.5) is 0-dim, tg::tensor({{1, 2}, {3, 4}}) is 2x2. Sub-lists must have equal
// sizes; the dtype is that of the C++ values (as tensor(ArrayRef) chooses), promoted across
// mixed values ({1, 2.5} is floating), unless the options give one.
class TensorData {
 public:
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  TensorData(T value)  // NOLINT: implicit, so that braced lists of numbers convert
      : scalar_(value), dtype_(dtype_for_value<T>()) {}
  TensorData(std::initializer_list<TensorData> list);  // NOLINT

  const std::vector<int64_t>& sizes() const { return sizes_; }
  ScalarType dtype() const { return dtype_; }
  // Writes the scalars in row-major order at data[position...], advancing position.
  void fill(char* data, ScalarType dtype, int64_t& position) const;
  friend std::ostream& operator<<(std::ostream& stream, const TensorData& data);

 private:
  template <typename T>
  static ScalarType dtype_for_value() {
    if constexpr (std::is_same_v<T, bool>) return kBool;
    else if constexpr (std::is_same_v<T, float>) return kFloat;
    else if constexpr (std::is_floating_point_v<T>) return default_dtype();
    else return kLong;
  }

  bool is_list_ = false;
  Scalar scalar_;
  std::vector<TensorData> elements_;
  std::vector<int64_t> sizes_;
  ScalarType dtype_ = ScalarType::Undefined;
};

Tensor tensor(const TensorData& data, const TensorOptions& options = {});

// A tensor over memory the caller owns (no copy). `deleter`, if given, runs when the last
// tensor using the memory is gone. The memory must hold the shape at the options' dtype.
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter,
                 const TensorOptions& options = {});

}  // namespace tg
