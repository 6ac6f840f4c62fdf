// DimVector: a small vector of int64 for shapes, inline up to 6 elements, so computing an
// output shape (broadcasting, reductions) does not allocate for ordinary tensors.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>

#include "core/array_ref.h"

namespace tg {

class DimVector {
 public:
  static constexpr size_t kInline = 6;

  DimVector() = default;
  explicit DimVector(size_t n, int64_t value = 0) { assign(n, value); }
  DimVector(IntArrayRef values) { assign(values); }  // NOLINT: implicit, a shape is a shape
  DimVector(std::initializer_list<int64_t> values) { assign(IntArrayRef(values)); }
  DimVector(const DimVector& other) { assign(other.ref()); }
  DimVector& operator=(const DimVector& other) {
    if (this != &other) assign(other.ref());
    return *this;
  }
  DimVector& operator=(IntArrayRef values) {
    assign(values);
    return *this;
  }

  size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  int64_t* data() noexcept { return heap_ ? heap_.get() : inline_; }
  const int64_t* data() const noexcept { return heap_ ? heap_.get() : inline_; }
  int64_t& operator[](size_t i) noexcept { return data()[i]; }
  int64_t operator[](size_t i) const noexcept { return data()[i]; }
  int64_t* begin() noexcept { return data(); }
  int64_t* end() noexcept { return data() + size_; }
  const int64_t* begin() const noexcept { return data(); }
  const int64_t* end() const noexcept { return data() + size_; }
  int64_t& back() noexcept { return data()[size_ - 1]; }

  IntArrayRef ref() const noexcept { return IntArrayRef(data(), size_); }
  operator IntArrayRef() const noexcept { return ref(); }  // NOLINT

  void push_back(int64_t value) {
    reserve(size_ + 1);
    data()[size_++] = value;
  }
  void insert(size_t pos, int64_t value) {
    reserve(size_ + 1);
    int64_t* d = data();
    std::move_backward(d + pos, d + size_, d + size_ + 1);
    d[pos] = value;
    ++size_;
  }
  void erase(size_t pos) {
    int64_t* d = data();
    std::move(d + pos + 1, d + size_, d + pos);
    --size_;
  }
  void resize(size_t n, int64_t value = 0) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data()[i] = value;
    size_ = n;
  }
  void clear() noexcept { size_ = 0; }

  friend bool operator==(const DimVector& a, const DimVector& b) { return a.ref() == b.ref(); }

 private:
  void reserve(size_t n) {
    size_t capacity = heap_ ? heap_capacity_ : kInline;
    if (n <= capacity) return;
    size_t new_capacity = std::max(n, 2 * capacity);
    auto bigger = std::make_unique<int64_t[]>(new_capacity);
    std::copy_n(data(), size_, bigger.get());
    heap_ = std::move(bigger);
    heap_capacity_ = new_capacity;
  }
  void assign(size_t n, int64_t value) {
    size_ = 0;
    resize(n, value);
  }
  void assign(IntArrayRef values) {
    size_ = 0;
    reserve(values.size());
    std::copy(values.begin(), values.end(), data());
    size_ = values.size();
  }

  size_t size_ = 0;
  int64_t inline_[kInline] = {};
  std::unique_ptr<int64_t[]> heap_;
  size_t heap_capacity_ = 0;
};

inline std::ostream& operator<<(std::ostream& out, const DimVector& v) { return out << v.ref(); }

}  // namespace tg
