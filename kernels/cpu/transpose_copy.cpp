// See transpose_copy.h.
#include "cpu/transpose_copy.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "core/dim_vector.h"
#include "cpu/launch.h"
#include "cpu/parallel.h"
#include "cpu/streaming_store.h"

namespace tg::cpu {

namespace {

// Tiles of kTile x kTile elements, moved through a buffer: each source row of a tile is read
// as one contiguous run, and each destination row written as one, 16 elements (a cache line
// of floats) at a time. Reading one side with a stride of whole rows (the plain tiled loop)
// was 1.8x slower on a 4096 x 1024 float transpose.
constexpr int64_t kTile = 16;
// Below this many elements the plain strided copy is as fast.
constexpr int64_t kMinElements = 4096;
// From this many bytes on, whole tile rows are written with streaming stores. See Note
// [Streaming stores in the transpose].
constexpr int64_t kStreamingMinBytes = int64_t{4} << 20;

// Note [Streaming stores in the transpose]
// Each tile writes kTile short runs, one per destination row, and consecutive tiles move to
// other rows: a store to a line not in cache first reads it (a read for ownership), and no
// prefetcher follows runs a whole row apart, so every written line waited for its read. On a
// 4096 x 1024 float transpose that was 3/4 of the time (27-35 ms; LibTorch 2.15 alone: 31).
// Non-temporal stores of whole 16-byte chunks skip the read: each tile row of 4- or 8-byte
// elements fills whole cache lines, which leave the write-combining buffers without touching
// the caches (7-8 ms). A copy that fits the caches keeps plain stores, so that the next
// kernel finds its input there.

// The copy, once the dims are known: `inner` (dst stride 1) and `across` (src stride 1) are
// tiled; every other dim of `outer` is walked around the tiles. Strides are in elements.
struct TransposePlan {
  int64_t inner_size, across_size;
  int64_t dst_across_stride, src_inner_stride;
  int64_t total_bytes;
  DimVector outer_sizes, outer_dst_strides, outer_src_strides;
};

// Writes one full tile row (kTile elements) to 16-byte aligned `out`, bypassing the caches.
template <typename T>
void store_tile_row_streaming(T* out, const T* row) {
  static_assert(kTile * sizeof(T) % 16 == 0);
  store_streaming(out, row, kTile * sizeof(T));
}

// Whether the tile rows of a copy into `dst` may be streamed: elements of 4 or 8
// bytes (whole lines per tile row), a large copy, and every tile row 16-byte aligned.
template <typename T>
bool use_streaming(const TransposePlan& plan, const T* dst) {
  if (sizeof(T) < 4 || plan.total_bytes < kStreamingMinBytes || !streamable(dst, 16)) return false;
  const auto aligned = [](int64_t stride) { return stride * static_cast<int64_t>(sizeof(T)) % 16 == 0; };
  return aligned(plan.dst_across_stride) &&
         std::all_of(plan.outer_dst_strides.begin(), plan.outer_dst_strides.end(), aligned);
}

template <typename T>
void run_tiles(const TransposePlan& plan, T* dst, const T* src) {
  const bool streaming = use_streaming(plan, dst);
  int64_t outer_count = 1;
  for (int64_t size : plan.outer_sizes) outer_count *= size;
  const int64_t tiles_across = (plan.across_size + kTile - 1) / kTile;
  const int64_t tiles_inner = (plan.inner_size + kTile - 1) / kTile;
  const int64_t tiles = outer_count * tiles_inner * tiles_across;
  parallel_for(tiles, kParallelGrain / (kTile * kTile), [&](int64_t begin, int64_t end) {
    alignas(16) T buffer[kTile][kTile];
    for (int64_t tile = begin; tile < end; ++tile) {
      const int64_t across0 = tile % tiles_across * kTile;
      const int64_t inner0 = tile / tiles_across % tiles_inner * kTile;
      int64_t outer = tile / tiles_across / tiles_inner;
      int64_t dst_base = 0, src_base = 0;
      for (int64_t d = static_cast<int64_t>(plan.outer_sizes.size()) - 1; d >= 0; --d) {
        const int64_t index = outer % plan.outer_sizes[d];
        outer /= plan.outer_sizes[d];
        dst_base += index * plan.outer_dst_strides[d];
        src_base += index * plan.outer_src_strides[d];
      }
      const int64_t inner_count = std::min(kTile, plan.inner_size - inner0);
      const int64_t across_count = std::min(kTile, plan.across_size - across0);
      for (int64_t i = 0; i < inner_count; ++i) {
        const T* in = src + src_base + (inner0 + i) * plan.src_inner_stride + across0;
        for (int64_t a = 0; a < across_count; ++a) buffer[a][i] = in[a];
      }
      for (int64_t a = 0; a < across_count; ++a) {
        T* out = dst + dst_base + (across0 + a) * plan.dst_across_stride + inner0;
        if (streaming && inner_count == kTile) {
          store_tile_row_streaming(out, buffer[a]);
        } else {
          std::memcpy(out, buffer[a], static_cast<size_t>(inner_count) * sizeof(T));
        }
      }
    }
    // Each thread orders its own streaming stores before the join that publishes dst.
    if (streaming) stream_fence();
  });
}

}  // namespace

bool copy_transposed(const Tensor& dst, const Tensor& src) {
  if (dst.scalar_type() != src.scalar_type() || dst.sizes() != src.sizes() || dst.numel() < kMinElements ||
      src.is_alias_of(dst)) {
    return false;
  }
  // The dims that matter: those of size > 1.
  int64_t inner = -1, across = -1;
  for (int64_t d = 0; d < dst.dim(); ++d) {
    if (dst.sizes()[d] == 1) continue;
    if (dst.strides()[d] == 1 && inner < 0) inner = d;
    if (src.strides()[d] == 1 && across < 0) across = d;
  }
  // Not a transpose: no unit-stride dim on a side, or the same one on both (rows copy fine).
  if (inner < 0 || across < 0 || inner == across) return false;
  TransposePlan plan{dst.sizes()[inner], dst.sizes()[across], dst.strides()[across], src.strides()[inner],
                     dst.numel() * dst.element_size(), {}, {}, {}};
  if (plan.src_inner_stride < kTile) return false;  // a short stride: lines are reused anyway
  for (int64_t d = 0; d < dst.dim(); ++d) {
    if (d == inner || d == across || dst.sizes()[d] == 1) continue;
    plan.outer_sizes.push_back(dst.sizes()[d]);
    plan.outer_dst_strides.push_back(dst.strides()[d]);
    plan.outer_src_strides.push_back(src.strides()[d]);
  }
  const int64_t element_size = dst.element_size();
  if (element_size != 1 && element_size != 2 && element_size != 4 && element_size != 8) return false;
  // Elements are moved as unsigned integers of their size: a copy converts nothing here.
  launch(std::array<char*, 2>{static_cast<char*>(dst.data_ptr()), static_cast<char*>(src.data_ptr())},
         [plan, element_size](const std::array<char*, 2>& p) {
           const auto run = [&]<typename T>(T*) {
             run_tiles(plan, reinterpret_cast<T*>(p[0]), reinterpret_cast<const T*>(p[1]));
           };
           switch (element_size) {
             case 1: return run(static_cast<uint8_t*>(nullptr));
             case 2: return run(static_cast<uint16_t*>(nullptr));
             case 4: return run(static_cast<uint32_t*>(nullptr));
             default: return run(static_cast<uint64_t*>(nullptr));
           }
         });
  return true;
}

}  // namespace tg::cpu
