#include "core/scalar.h"

#include <cmath>

namespace tg {

Scalar Scalar::operator-() const {
  TG_CHECK_TYPE(!is_boolean(), "[Scalar] negation of a bool Scalar is not supported; use logical_not");
  if (is_floating_point()) return Scalar(-value_.d);
  return Scalar(-value_.i);
}

bool Scalar::equal(const Scalar& other) const {
  if (is_floating_point() || other.is_floating_point()) return toDouble() == other.toDouble();
  return toLong() == other.toLong();
}

void Scalar::check_fits_integral(double v, unsigned bits, bool is_signed) {
  const double t = std::trunc(v);
  // The bounds are powers of two, so exact in double: [-2^(bits-1), 2^(bits-1)) or [0, 2^bits).
  const double low = is_signed ? -std::ldexp(1.0, static_cast<int>(bits) - 1) : 0.0;
  const double high = std::ldexp(1.0, static_cast<int>(bits) - (is_signed ? 1 : 0));
  TG_CHECK(t >= low && t < high, "[Scalar] value ", v, " cannot be converted to a ",
           is_signed ? "signed" : "unsigned", " ", bits, "-bit integer without overflow");
}

std::ostream& operator<<(std::ostream& out, const Scalar& s) {
  if (s.is_floating_point()) return out << s.toDouble();
  if (s.is_boolean()) return out << (s.toBool() ? "true" : "false");
  return out << s.toLong();
}

}  // namespace tg
