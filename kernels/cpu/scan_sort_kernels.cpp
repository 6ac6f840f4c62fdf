// CPU kernel of cumsum along one dim; the input is made contiguous and seen as
// [outer, size, inner] blocks (dim_blocks.h):
//   out[o, k, i] = sum of in[o, 0..k, i], accumulated in the out dtype's compute type.
// (topk is in topk_kernel.cpp.)
#include <algorithm>
#include <cmath>
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

}  // namespace tg
