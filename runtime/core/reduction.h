// Reduction: how a loss combines its per-element values, as ATen's at::Reduction. Schemas
// spell the default `int reduction=Mean`; the value is the int the operator receives.
//   None: one loss per element; Mean: their (weighted) mean; Sum: their sum.
#pragma once

#include <cstdint>

namespace tg::Reduction {

enum Reduction : int64_t { None = 0, Mean = 1, Sum = 2 };

}  // namespace tg::Reduction
