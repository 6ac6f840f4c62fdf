// Whole-tensor comparisons, as LibTorch's: isclose (elementwise, a bool tensor), allclose and
// equal (one bool). isclose(a, b) <=> |a - b| <= atol + rtol |b|, or a == b (so equal
// infinities are close), or both NaN when equal_nan.
#pragma once

#include "core/tensor.h"

namespace tg {

Tensor isclose(const Tensor& self, const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
               bool equal_nan = false);
bool allclose(const Tensor& self, const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
              bool equal_nan = false);
// Same shape and every element equal (NaN is never equal).
bool equal(const Tensor& self, const Tensor& other);

}  // namespace tg
