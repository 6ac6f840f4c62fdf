#include "core/wrap_dim.h"

namespace tg::detail {

void dim_out_of_range(const char* op, int64_t dim, int64_t ndim) {
  int64_t n = ndim <= 0 ? 1 : ndim;
  TG_THROW(IndexError, "[", op, "] dimension out of range (expected to be in range of [", -n, ", ", n - 1,
           "], but got ", dim, ")");
}

}  // namespace tg::detail
