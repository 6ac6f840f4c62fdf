#include "core/scalar.h"

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

std::ostream& operator<<(std::ostream& out, const Scalar& s) {
  if (s.is_floating_point()) return out << s.toDouble();
  if (s.is_boolean()) return out << (s.toBool() ? "true" : "false");
  return out << s.toLong();
}

}  // namespace tg
