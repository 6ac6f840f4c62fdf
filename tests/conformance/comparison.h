// Comparing results: tensors element by element in double precision, with per-dtype
// tolerances (PyTorch's defaults for torch.testing.assert_close unless an entry overrides).
#pragma once

#include <string>

#include "op_spec.h"

namespace tg::conformance {

struct Tolerances {
  double atol = 0, rtol = 0;
};

// The tolerance for results of `dtype`: the entry's `tolerance:` if it names the dtype.
Tolerances tolerance_for(const OpSpec& spec, ScalarType dtype);
inline constexpr Tolerances kExact{0, 0};

// Empty when `actual` matches `expected` (shape, dtype and values; NaN equals NaN), else
// what differs, with the first differing element.
std::string mismatch(const Tensor& expected, const Tensor& actual, Tolerances tol, bool values = true);

// The same for every tensor of two result stacks (other values compared as printed).
std::string mismatch(const Stack& expected, const Stack& actual, Tolerances tol, bool values = true);

// Every element in row-major order as double, read through the tensor's strides.
std::vector<double> values_of(const Tensor& t);

}  // namespace tg::conformance
