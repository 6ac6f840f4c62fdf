// SizesAndStrides: a tensor's shape and strides, stored inline for up to 5 dims (no heap
// allocation for the shapes nearly every tensor has), on the heap beyond that.
// Invariant: size(i) and stride(i) are valid for 0 <= i < dim().
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/array_ref.h"

namespace tg {

class SizesAndStrides {
 public:
  static constexpr size_t kInlineDims = 5;

  SizesAndStrides() = default;
  SizesAndStrides(const SizesAndStrides& other) { copy_from(other); }
  SizesAndStrides& operator=(const SizesAndStrides& other) {
    if (this != &other) copy_from(other);
    return *this;
  }
  ~SizesAndStrides() { free_heap(); }

  size_t dim() const noexcept { return dim_; }
  IntArrayRef sizes() const noexcept { return IntArrayRef(sizes_data(), dim_); }
  IntArrayRef strides() const noexcept { return IntArrayRef(strides_data(), dim_); }
  int64_t* sizes_data() noexcept { return is_inline() ? inline_ : heap_; }
  int64_t* strides_data() noexcept { return sizes_data() + capacity(); }
  const int64_t* sizes_data() const noexcept { return is_inline() ? inline_ : heap_; }
  const int64_t* strides_data() const noexcept { return sizes_data() + capacity(); }

  // Changes the number of dims; contents become unspecified.
  void resize(size_t dim) {
    if (dim > kInlineDims && dim > heap_capacity_) {
      free_heap();
      heap_ = new int64_t[2 * dim];
      heap_capacity_ = dim;
    } else if (dim <= kInlineDims) {
      free_heap();
    }
    dim_ = dim;
  }

 private:
  bool is_inline() const noexcept { return heap_ == nullptr; }
  size_t capacity() const noexcept { return is_inline() ? kInlineDims : heap_capacity_; }
  void free_heap() {
    delete[] heap_;
    heap_ = nullptr;
    heap_capacity_ = 0;
  }
  void copy_from(const SizesAndStrides& other) {
    resize(other.dim_);
    std::copy_n(other.sizes_data(), dim_, sizes_data());
    std::copy_n(other.strides_data(), dim_, strides_data());
  }

  size_t dim_ = 0;
  int64_t inline_[2 * kInlineDims] = {};  // sizes in [0, 5), strides in [5, 10)
  int64_t* heap_ = nullptr;               // sizes in [0, cap), strides in [cap, 2 cap)
  size_t heap_capacity_ = 0;
};

}  // namespace tg
