// CPU kernels of index_select and index_add. Both see their tensors as [outer, size, inner]
// blocks around dim (dim_blocks.h) and move whole inner rows:
//   index_select: out[o, k, :] = self[o, index[k], :]
//   index_add:    out[o, index[k], :] += alpha * source[o, k, :]
#include <cstring>

#include "NativeFunctions.h"
#include "core/wrap_dim.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "cpu/streaming_store.h"
#include "dim_blocks.h"
#include "dtype_dispatch.h"
#include "index_rules.h"
#include "ops/structured.h"
#include "scalar_math.h"

namespace tg {

namespace {

// From this output size on, index_select streams its rows (as a scan does).
constexpr int64_t kGatherStreamingMinBytes = int64_t{4} << 20;

}  // namespace

Tensor native::index_select_cpu(const Tensor& self, int64_t dim, const Tensor& index) {
  dim = maybe_wrap_dim(dim, self.dim(), "index_select");
  const DimVector sizes = index_select_sizes(self, dim, index);
  const Tensor index_t = check_index("index_select", index, self.dim() == 0 ? 1 : self.size(dim));
  Tensor out = make_empty_tensor(sizes, self.scalar_type(), self.device());
  if (out.numel() == 0) return out;
  const Tensor input = cpu::contiguous_as(self, self.scalar_type());
  const DimBlocks in = blocks_around(input.sizes(), dim);
  const int64_t count = index_t.numel();
  const int64_t* idx = index_t.data_ptr<int64_t>();
  const size_t row_bytes = static_cast<size_t>(in.inner * input.element_size());
  const char* src = static_cast<const char*>(input.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  // A large gather (embedding's lookups) writes its rows with streaming stores: see
  // Note [Streaming the scan's output] (scan_sort_kernels.cpp) for why.
  const bool streaming = static_cast<int64_t>(out.nbytes()) >= kGatherStreamingMinBytes &&
                         cpu::streamable(dst, static_cast<int64_t>(row_bytes));
  for (int64_t o = 0; o < in.outer; ++o) {
    for (int64_t k = 0; k < count; ++k) {
      char* to = dst + (o * count + k) * row_bytes;
      const char* from = src + (o * in.size + idx[k]) * row_bytes;
      if (streaming) {
        cpu::store_streaming(to, from, static_cast<int64_t>(row_bytes));
      } else {
        std::memcpy(to, from, row_bytes);
      }
    }
  }
  if (streaming) cpu::stream_fence();
  return out;
}

Tensor native::index_select_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  check_index_select_out(self, out);
  Tensor result = index_select_cpu(self, dim, index);
  resize_output(out, result.sizes());
  cpu::copy_into(out, result);
  return out;
}

void native::index_add_out_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                               const Scalar& alpha, const Tensor& out) {
  dim = maybe_wrap_dim(dim, self.dim(), "index_add");
  const DimBlocks b = blocks_around(out.sizes(), dim);
  const Tensor index_t = check_index("index_add", index, b.size);
  if (!out.is_same(self)) cpu::copy_into(out, self);
  const int64_t count = index_t.numel();
  const int64_t* idx = index_t.data_ptr<int64_t>();
  TG_DISPATCH_ALL_TYPES(out.scalar_type(), "index_add", [&] {
    const Tensor source_t = cpu::contiguous_as(source, out.scalar_type());
    const scalar_t* src = source_t.data_ptr<scalar_t>();
    scalar_t* dst = out.data_ptr<scalar_t>();
    using T = opmath_t<scalar_t>;
    const T factor = alpha.to<T>();
    for (int64_t o = 0; o < b.outer; ++o) {
      for (int64_t k = 0; k < count; ++k) {
        scalar_t* row = dst + (o * b.size + idx[k]) * b.inner;
        const scalar_t* from = src + (o * count + k) * b.inner;
        for (int64_t i = 0; i < b.inner; ++i) {
          const T sum = math::add(cpu::convert<T>(row[i]), math::mul(factor, cpu::convert<T>(from[i])));
          row[i] = cpu::convert<scalar_t>(sum);
        }
      }
    }
  });
}

}  // namespace tg
