// CPU kernels of cumsum and topk along one dim; inputs are made contiguous and seen as
// [outer, size, inner] blocks (dim_blocks.h).
//   cumsum: out[o, k, i] = sum of in[o, 0..k, i], accumulated in the out dtype's compute type
//   topk:   per (o, i), the k largest (smallest) of in[o, :, i], sorted, with their positions;
//           NaN is larger than every number, and equal values keep their index order.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "NativeFunctions.h"
#include "core/wrap_dim.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "cpu/parallel.h"
#include "dim_blocks.h"
#include "dtype_dispatch.h"
#include "scalar_math.h"

namespace tg {

void native::cumsum_out_cpu(const Tensor& self, int64_t dim, std::optional<ScalarType> /*dtype*/, const Tensor& out) {
  const DimBlocks b = blocks_around(self.sizes(), maybe_wrap_dim(dim, self.dim(), "cumsum"));
  if (out.numel() == 0) return;
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "cumsum", [&] {
    using T = opmath_t<scalar_t>;
    const Tensor input = cpu::contiguous_as(self, out.scalar_type());
    const scalar_t* src = input.data_ptr<scalar_t>();
    scalar_t* dst = out.data_ptr<scalar_t>();
    const int64_t grain = std::max<int64_t>(1, cpu::kParallelGrain / (b.size * b.inner));
    if (b.inner == 1) {
      // Scanning along contiguous rows: each running sum is a chain of dependent additions,
      // so kRows rows are scanned side by side to overlap their chains.
      constexpr int64_t kRows = 8;
      cpu::parallel_for(b.outer, grain, [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; o += kRows) {
          const int64_t count = std::min(kRows, end - o);
          T running[kRows] = {};
          for (int64_t k = 0; k < b.size; ++k) {
            for (int64_t r = 0; r < count; ++r) {
              const int64_t at = (o + r) * b.size + k;
              running[r] = math::add(running[r], cpu::convert<T>(src[at]));
              dst[at] = cpu::convert<scalar_t>(running[r]);
            }
          }
        }
      });
      return;
    }
    // Otherwise a row of `inner` running sums, updated elementwise (vectorised) at each k.
    cpu::parallel_for(b.outer, grain, [&](int64_t begin, int64_t end) {
      std::vector<T> running(static_cast<size_t>(b.inner));
      for (int64_t o = begin; o < end; ++o) {
        std::fill(running.begin(), running.end(), T(0));
        for (int64_t k = 0; k < b.size; ++k) {
          const int64_t at = (o * b.size + k) * b.inner;
          for (int64_t i = 0; i < b.inner; ++i) {
            running[i] = math::add(running[i], cpu::convert<T>(src[at + i]));
            dst[at + i] = cpu::convert<scalar_t>(running[i]);
          }
        }
      }
    });
  });
}

void native::topk_out_cpu(const Tensor& self, int64_t k, int64_t dim, bool largest, bool /*sorted*/,
                          const Tensor& values, const Tensor& indices) {
  const DimBlocks b = blocks_around(self.sizes(), maybe_wrap_dim(dim, self.dim(), "topk"));
  if (values.numel() == 0) return;
  TG_DISPATCH_NUMERIC_TYPES(self.scalar_type(), "topk", [&] {
    using T = opmath_t<scalar_t>;
    const Tensor input = cpu::contiguous_as(self, self.scalar_type());
    const scalar_t* src = input.data_ptr<scalar_t>();
    scalar_t* out_values = values.data_ptr<scalar_t>();
    int64_t* out_indices = indices.data_ptr<int64_t>();
    // Whether (a, i) comes before (b, j): the larger (smaller) value first, NaN first when
    // largest, last when smallest; ties by index.
    auto before = [largest](const std::pair<T, int64_t>& a, const std::pair<T, int64_t>& b) {
      const bool a_nan = math::is_nan(a.first), b_nan = math::is_nan(b.first);
      if (a_nan || b_nan) {
        if (a_nan && b_nan) return a.second < b.second;
        return largest ? a_nan : b_nan;
      }
      if (a.first != b.first) return largest ? a.first > b.first : a.first < b.first;
      return a.second < b.second;
    };
    std::vector<std::pair<T, int64_t>> slice(static_cast<size_t>(b.size));
    for (int64_t o = 0; o < b.outer; ++o) {
      for (int64_t i = 0; i < b.inner; ++i) {
        for (int64_t j = 0; j < b.size; ++j) slice[j] = {cpu::convert<T>(src[(o * b.size + j) * b.inner + i]), j};
        std::partial_sort(slice.begin(), slice.begin() + k, slice.end(), before);
        for (int64_t j = 0; j < k; ++j) {
          const int64_t at = (o * k + j) * b.inner + i;
          out_values[at] = cpu::convert<scalar_t>(slice[j].first);
          out_indices[at] = slice[j].second;
        }
      }
    }
  });
}

}  // namespace tg
