// ArrayRef<T>: a non-owning view of contiguous elements (pointer + length), like c10::ArrayRef.
// Invariant: the viewed elements outlive the ArrayRef; it never allocates.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <vector>

#include "core/error.h"

namespace tg {

template <typename T>
class ArrayRef {
 public:
  using value_type = T;
  using iterator = const T*;
  using const_iterator = const T*;

  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}  // NOLINT: implicit like c10
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  template <typename A>
  ArrayRef(const std::vector<T, A>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
  template <size_t N>
  constexpr ArrayRef(const std::array<T, N>& a) : data_(a.data()), size_(N) {}  // NOLINT
  template <size_t N>
  constexpr ArrayRef(const T (&a)[N]) : data_(a), size_(N) {}  // NOLINT
  // Views the initializer list's backing array: valid for the full expression only, which is
  // what a call like tg::zeros({2, 3}) needs (the warning is about exactly that lifetime).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  constexpr ArrayRef(const std::initializer_list<T>& list)  // NOLINT
      : data_(list.begin() == list.end() ? nullptr : list.begin()), size_(list.size()) {}
#pragma GCC diagnostic pop

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& front() const { return data_[0]; }
  constexpr const T& back() const { return data_[size_ - 1]; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  const T& at(size_t i) const {
    TG_CHECK_INDEX(i < size_, "[ArrayRef] index ", i, " out of range for size ", size_);
    return data_[i];
  }
  // Elements [start, start + length); the range must lie within this view (tg::IndexError).
  ArrayRef slice(size_t start, size_t length) const {
    TG_CHECK_INDEX(start <= size_ && length <= size_ - start, "[ArrayRef] slice of ", length, " elements at ", start,
                   " out of range for size ", size_);
    return ArrayRef(data_ + start, length);
  }
  ArrayRef slice(size_t start) const { return slice(start, start <= size_ ? size_ - start : 0); }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  bool equals(ArrayRef other) const {
    if (size_ != other.size_) return false;
    for (size_t i = 0; i < size_; ++i) {
      if (!(data_[i] == other.data_[i])) return false;
    }
    return true;
  }
  friend bool operator==(ArrayRef a, ArrayRef b) { return a.equals(b); }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

using IntArrayRef = ArrayRef<int64_t>;

// An ArrayRef that may be absent (`int[1]? dim` in a schema), like c10::OptionalArrayRef.
// Unlike std::optional<ArrayRef<T>>, it takes a braced list directly, so `t.sum({1})` views
// the caller's list (alive for the whole call) instead of a temporary made and destroyed
// inside std::optional's converting constructor.
template <typename T>
class OptionalArrayRef {
 public:
  constexpr OptionalArrayRef() = default;
  constexpr OptionalArrayRef(std::nullopt_t) {}                            // NOLINT
  constexpr OptionalArrayRef(ArrayRef<T> ref) : value_(ref), has_(true) {}  // NOLINT
  constexpr OptionalArrayRef(const T& one) : value_(one), has_(true) {}     // NOLINT
  template <typename A>
  OptionalArrayRef(const std::vector<T, A>& v) : value_(v), has_(true) {}  // NOLINT
  template <size_t N>
  constexpr OptionalArrayRef(const std::array<T, N>& a) : value_(a), has_(true) {}  // NOLINT
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  constexpr OptionalArrayRef(const std::initializer_list<T>& list) : value_(list), has_(true) {}  // NOLINT
#pragma GCC diagnostic pop
  OptionalArrayRef(const std::optional<ArrayRef<T>>& o) : value_(o.value_or(ArrayRef<T>())), has_(o.has_value()) {}  // NOLINT
  template <typename A>
  OptionalArrayRef(const std::optional<std::vector<T, A>>& o)  // NOLINT
      : value_(o ? ArrayRef<T>(*o) : ArrayRef<T>()), has_(o.has_value()) {}

  constexpr bool has_value() const noexcept { return has_; }
  constexpr explicit operator bool() const noexcept { return has_; }
  const ArrayRef<T>& value() const {
    TG_CHECK_VALUE(has_, "[OptionalArrayRef] value() of an empty optional");
    return value_;
  }
  constexpr const ArrayRef<T>& operator*() const noexcept { return value_; }
  constexpr const ArrayRef<T>* operator->() const noexcept { return &value_; }
  ArrayRef<T> value_or(ArrayRef<T> fallback) const { return has_ ? value_ : fallback; }

 private:
  ArrayRef<T> value_;
  bool has_ = false;
};

using OptionalIntArrayRef = OptionalArrayRef<int64_t>;

template <typename T>
std::ostream& operator<<(std::ostream& out, ArrayRef<T> list) {
  out << "[";
  for (size_t i = 0; i < list.size(); ++i) out << (i ? ", " : "") << list[i];
  return out << "]";
}

}  // namespace tg
