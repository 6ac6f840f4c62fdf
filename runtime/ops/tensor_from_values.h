// Tensors from C++ values, as LibTorch has them: tg::tensor({1.f, 2.f, 3.f}) copies a list,
// tg::from_blob(ptr, {2, 3}) views memory the caller owns.
#pragma once

#include <functional>
#include <initializer_list>
#include <vector>

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

// A tensor over memory the caller owns (no copy). `deleter`, if given, runs when the last
// tensor using the memory is gone. The memory must hold the shape at the options' dtype.
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter,
                 const TensorOptions& options = {});

}  // namespace tg
