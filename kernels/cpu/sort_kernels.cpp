// CPU kernel of sort: each [outer, size, inner] slice (dim_blocks.h) is sorted with
// std::stable_sort on (value, index) pairs; NaN is larger than every number, so it goes last
// ascending and first descending, and equal values keep their index order.
#include <algorithm>
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

void native::sort_out_cpu(const Tensor& self, std::optional<bool> /*stable*/, int64_t dim, bool descending,
                          const Tensor& values, const Tensor& indices) {
  const DimBlocks b = blocks_around(self.sizes(), maybe_wrap_dim(dim, self.dim(), "sort"));
  if (values.numel() == 0) return;
  TG_DISPATCH_NUMERIC_TYPES(self.scalar_type(), "sort", [&] {
    using T = opmath_t<scalar_t>;
    const Tensor input = cpu::contiguous_as(self, self.scalar_type());
    const scalar_t* src = input.data_ptr<scalar_t>();
    scalar_t* out_values = values.data_ptr<scalar_t>();
    int64_t* out_indices = indices.data_ptr<int64_t>();
    // With a stable sort, equal keys keep index order by themselves: only values compare.
    auto before = [descending](const std::pair<T, int64_t>& x, const std::pair<T, int64_t>& y) {
      const bool x_nan = math::is_nan(x.first), y_nan = math::is_nan(y.first);
      if (x_nan || y_nan) return descending ? (x_nan && !y_nan) : (!x_nan && y_nan);
      return descending ? x.first > y.first : x.first < y.first;
    };
    const int64_t grain = std::max<int64_t>(1, cpu::kParallelGrain / std::max<int64_t>(b.size, 1));
    cpu::parallel_for(b.outer * b.inner, grain, [&](int64_t begin, int64_t end) {
      std::vector<std::pair<T, int64_t>> slice(static_cast<size_t>(b.size));
      for (int64_t s = begin; s < end; ++s) {
        const int64_t o = s / b.inner, i = s % b.inner;
        for (int64_t j = 0; j < b.size; ++j) slice[j] = {cpu::convert<T>(src[(o * b.size + j) * b.inner + i]), j};
        std::stable_sort(slice.begin(), slice.end(), before);
        for (int64_t j = 0; j < b.size; ++j) {
          const int64_t at = (o * b.size + j) * b.inner + i;
          out_values[at] = cpu::convert<scalar_t>(slice[j].first);
          out_indices[at] = slice[j].second;
        }
      }
    });
  });
}

}  // namespace tg
