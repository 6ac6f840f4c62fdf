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
#include "cpu/streaming_store.h"
#include "dim_blocks.h"
#include "dtype_dispatch.h"
#include "scalar_math.h"

namespace tg {

namespace {

// Note [Streaming the scan's output]
// A scan along rows reads its input once and writes an output as large, which a plain store
// first reads into the cache (a read for ownership): a third of its memory traffic. A large
// scan therefore collects each row's outputs a cache line at a time and writes the line
// with streaming stores (cpu/streaming_store.h), as the transpose does; the sums and their
// order are unchanged. Below this size the output stays in the caches for the next kernel.
constexpr int64_t kScanStreamingMinBytes = int64_t{4} << 20;

}  // namespace

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
      // so kRows rows are scanned side by side to overlap their chains. See Note [Streaming
      // the scan's output] for the chunks.
      constexpr int64_t kRows = 8;
      constexpr int64_t kChunk = 64 / sizeof(scalar_t);  // one cache line of a row
      const bool streaming = b.outer * b.size * static_cast<int64_t>(sizeof(scalar_t)) >= kScanStreamingMinBytes &&
                             cpu::streamable(dst, b.size * static_cast<int64_t>(sizeof(scalar_t)));
      cpu::parallel_for(b.outer, grain, [&](int64_t begin, int64_t end) {
        alignas(64) scalar_t chunk[kRows][kChunk];
        for (int64_t o = begin; o < end; o += kRows) {
          const int64_t count = std::min(kRows, end - o);
          T running[kRows] = {};
          int64_t k0 = 0;
          if (streaming) {
            for (; k0 + kChunk <= b.size; k0 += kChunk) {
              for (int64_t k = 0; k < kChunk; ++k) {
                for (int64_t r = 0; r < count; ++r) {
                  running[r] = math::add(running[r], cpu::convert<T>(src[(o + r) * b.size + k0 + k]));
                  chunk[r][k] = cpu::convert<scalar_t>(running[r]);
                }
              }
              for (int64_t r = 0; r < count; ++r) cpu::store_streaming(dst + (o + r) * b.size + k0, chunk[r], 64);
            }
          }
          for (int64_t k = k0; k < b.size; ++k) {
            for (int64_t r = 0; r < count; ++r) {
              const int64_t at = (o + r) * b.size + k;
              running[r] = math::add(running[r], cpu::convert<T>(src[at]));
              dst[at] = cpu::convert<scalar_t>(running[r]);
            }
          }
        }
        if (streaming) cpu::stream_fence();
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
