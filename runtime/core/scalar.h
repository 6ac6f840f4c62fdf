// Scalar: one number passed to an operator (alpha=1, fill_(2.5), ...), like c10::Scalar.
// It holds a double, an int64 or a bool; its type() is kDouble, kLong or kBool, which is what
// type promotion sees (a floating Scalar counts as the default dtype, see ResultTypeState).
#pragma once

#include <cstdint>
#include <ostream>
#include <type_traits>

#include "core/error.h"
#include "core/half.h"
#include "core/scalar_type.h"

namespace tg {

class Scalar {
 public:
  Scalar() : Scalar(int64_t(0)) {}
  Scalar(double v) : tag_(Tag::Double) { value_.d = v; }  // NOLINT: implicit like c10::Scalar
  Scalar(float v) : Scalar(static_cast<double>(v)) {}     // NOLINT
  Scalar(Half v) : Scalar(static_cast<double>(static_cast<float>(v))) {}          // NOLINT
  Scalar(BFloat16 v) : Scalar(static_cast<double>(static_cast<float>(v))) {}      // NOLINT
  Scalar(bool v) : tag_(Tag::Bool) { value_.i = v; }       // NOLINT
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : tag_(Tag::Int) {  // NOLINT
    value_.i = static_cast<int64_t>(v);
  }

  bool is_floating_point() const noexcept { return tag_ == Tag::Double; }
  bool is_integral(bool include_bool) const noexcept {
    return tag_ == Tag::Int || (include_bool && tag_ == Tag::Bool);
  }
  bool is_boolean() const noexcept { return tag_ == Tag::Bool; }
  ScalarType type() const noexcept {
    return tag_ == Tag::Double ? kDouble : tag_ == Tag::Int ? kLong : kBool;
  }

  // Converts to T as a C++ static_cast would, except that a floating value an integral T cannot
  // hold (NaN, an infinity, out of range) raises tg::Error as c10's checked conversion does:
  // that static_cast would be undefined behaviour (docs/reliability.md).
  template <typename T>
  T to() const {
    if (tag_ == Tag::Double) {
      if constexpr (std::is_same_v<T, bool>) {
        return value_.d != 0;
      } else if constexpr (std::is_integral_v<T>) {
        check_fits_integral(value_.d, sizeof(T) * 8, std::is_signed_v<T>);
        return static_cast<T>(value_.d);
      } else {
        return static_cast<T>(value_.d);
      }
    }
    if constexpr (std::is_same_v<T, bool>) return value_.i != 0;
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      return T(static_cast<float>(value_.i));
    } else {
      return static_cast<T>(value_.i);
    }
  }
  double toDouble() const { return to<double>(); }
  float toFloat() const { return to<float>(); }
  int64_t toLong() const { return to<int64_t>(); }
  int toInt() const { return to<int>(); }
  bool toBool() const { return to<bool>(); }

  Scalar operator-() const;
  bool equal(const Scalar& other) const;  // same value, compared in the wider kind

 private:
  // Raises tg::Error unless trunc(v) is a value of the integer type with `bits` bits.
  static void check_fits_integral(double v, unsigned bits, bool is_signed);

  enum class Tag : uint8_t { Double, Int, Bool };
  Tag tag_;
  union {
    double d;
    int64_t i;
  } value_;
};

std::ostream& operator<<(std::ostream& out, const Scalar& s);

}  // namespace tg
