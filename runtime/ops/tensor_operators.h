// C++ operators on tensors, as LibTorch has them: a + b, a * 2, -a, a += b, a == b.
#pragma once

#include "Functions.h"
#include "TensorMethods.h"

namespace tg {

inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
inline Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
inline Tensor operator-(const Scalar& a, const Tensor& b) { return add(neg(b), a); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
inline Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
inline Tensor operator-(const Tensor& a) { return neg(a); }

inline const Tensor& operator+=(const Tensor& a, const Tensor& b) { return a.add_(b); }
inline const Tensor& operator+=(const Tensor& a, const Scalar& b) { return a.add_(b); }
inline const Tensor& operator-=(const Tensor& a, const Tensor& b) { return a.sub_(b); }
inline const Tensor& operator-=(const Tensor& a, const Scalar& b) { return a.sub_(b); }
inline const Tensor& operator*=(const Tensor& a, const Tensor& b) { return a.mul_(b); }
inline const Tensor& operator*=(const Tensor& a, const Scalar& b) { return a.mul_(b); }
inline const Tensor& operator/=(const Tensor& a, const Tensor& b) { return a.div_(b); }
inline const Tensor& operator/=(const Tensor& a, const Scalar& b) { return a.div_(b); }

inline Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
inline Tensor operator==(const Tensor& a, const Scalar& b) { return eq(a, b); }
inline Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
inline Tensor operator!=(const Tensor& a, const Scalar& b) { return ne(a, b); }
inline Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
inline Tensor operator<(const Tensor& a, const Scalar& b) { return lt(a, b); }
inline Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
inline Tensor operator<=(const Tensor& a, const Scalar& b) { return le(a, b); }
inline Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
inline Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, b); }
inline Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
inline Tensor operator>=(const Tensor& a, const Scalar& b) { return ge(a, b); }

}  // namespace tg
