// Dim wrapping: PyTorch's negative dims count from the end (-1 is the last dim).
// maybe_wrap_dim(d, n) returns d + n for d in [-n, 0) and d for d in [0, n); anything else
// is a tg::IndexError that names the op and the valid range.
#pragma once

#include <cstdint>

#include "core/error.h"

namespace tg {

namespace detail {
[[noreturn]] void dim_out_of_range(const char* op, int64_t dim, int64_t ndim);
}

// `ndim` 0 is treated as 1, as PyTorch does, so a scalar accepts dims 0 and -1.
inline int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, const char* op = "tensor") {
  int64_t n = ndim <= 0 ? 1 : ndim;
  if (__builtin_expect(dim < -n || dim >= n, 0)) detail::dim_out_of_range(op, dim, ndim);
  return dim < 0 ? dim + n : dim;
}

}  // namespace tg
