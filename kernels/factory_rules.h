// PyTorch's rules for fill_ and arange arguments, shared by the CPU and CUDA kernels so both
// backends accept and reject exactly the same values with the same messages.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/error.h"
#include "core/half.h"
#include "core/scalar.h"

namespace tg {

// Whether `value` converts to T without overflow, as PyTorch's fill_ checks (c10's
// checked_convert): an unsigned type also takes negative values of its width (-1 -> 255).
template <typename T>
bool fits_without_overflow(const Scalar& value) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, double>) {
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    const double max = static_cast<double>(std::numeric_limits<T>::max());
    const double lowest = std::is_unsigned_v<T> ? -max : static_cast<double>(std::numeric_limits<T>::lowest());
    if (value.is_floating_point()) {
      const double v = value.toDouble();
      return v >= lowest && v <= max;  // false for nan
    }
    const int64_t v = value.toLong();
    return static_cast<double>(v) >= lowest && static_cast<double>(v) <= max;
  } else {
    const double v = value.toDouble();
    // float16's largest finite value; bfloat16 has float's range.
    const double limit = std::is_same_v<T, Half> ? 65504.0 : static_cast<double>(std::numeric_limits<float>::max());
    return !std::isfinite(v) || std::fabs(v) <= limit;
  }
}

// An arange over elements of type scalar_t: element i = start + i * step, computed in acc_t
// (int64 for integral outputs, double for floating ones), i < size.
template <typename scalar_t>
struct ArangeRange {
  using acc_t = std::conditional_t<std::is_integral_v<scalar_t>, int64_t, double>;
  acc_t start;
  acc_t step;
  int64_t size;
};

// PyTorch's arange: size = ceil((end - start) / step). Throws tg::ValueError for a range that
// is not finite, does not fit int64 (integral outputs), has a zero step, runs against the
// step's sign, or whose size overflows.
template <typename scalar_t>
ArangeRange<scalar_t> arange_range(const Scalar& start, const Scalar& end, const Scalar& step) {
  using acc_t = typename ArangeRange<scalar_t>::acc_t;
  TG_CHECK_VALUE(std::isfinite(start.toDouble()) && std::isfinite(end.toDouble()), "[arange] unsupported range: ", start,
                 " -> ", end);
  if constexpr (std::is_integral_v<scalar_t>) {
    constexpr double kLimit = 9.2e18;  // below 2^63: the bounds must fit in int64
    TG_CHECK_VALUE(std::fabs(start.toDouble()) < kLimit && std::fabs(end.toDouble()) < kLimit &&
                       std::fabs(step.toDouble()) < kLimit,
                   "[arange] the range ", start, " -> ", end, " with step ", step, " does not fit in int64");
  }
  const acc_t xstart = start.to<acc_t>();
  const acc_t xend = end.to<acc_t>();
  const acc_t xstep = step.to<acc_t>();
  TG_CHECK_VALUE(xstep > 0 || xstep < 0, "[arange] step must be nonzero");
  TG_CHECK_VALUE((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart),
                 "[arange] upper bound and lower bound inconsistent with step sign: start ", start, ", end ", end,
                 ", step ", step);
  double size_d;
  if constexpr (std::is_same_v<scalar_t, int64_t>) {
    const int64_t sign = (xstep > 0) - (xstep < 0);
    size_d = static_cast<double>((xend - xstart + xstep - sign) / xstep);
  } else {
    size_d = std::ceil((end.toDouble() - start.toDouble()) / step.toDouble());
  }
  // 2^63 (int64 max as a double) does not fit: converting it would be undefined.
  TG_CHECK_VALUE(size_d >= 0 && size_d < static_cast<double>(std::numeric_limits<int64_t>::max()),
                 "[arange] invalid size ", size_d, ", possible overflow?");
  return ArangeRange<scalar_t>{xstart, xstep, static_cast<int64_t>(size_d)};
}

}  // namespace tg
