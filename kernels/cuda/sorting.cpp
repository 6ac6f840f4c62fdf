// The native:: CUDA kernel of sort: topk's selection kernel (dim_ops.cu) with k = the whole
// slice, which orders exactly as the CPU's stable sort (NaN largest, ties by index).
// O(size^2 / 32) per slice: right for the short rows models sort; a radix sort for long ones
// is future work (docs/operators.md).
#include "NativeFunctions.h"
#include "core/wrap_dim.h"
#include "cuda/dim_ops.h"
#include "cuda/elementwise_host.h"
#include "dim_blocks.h"

namespace tg {

void native::sort_out_cuda(const Tensor& self, std::optional<bool> /*stable*/, int64_t dim, bool descending,
                           const Tensor& values, const Tensor& indices) {
  const DimBlocks blocks = blocks_around(self.sizes(), maybe_wrap_dim(dim, self.dim(), "sort"));
  if (values.numel() == 0) return;
  const Tensor input = cuda::contiguous_as(self, self.scalar_type());
  cuda::launch_topk(self.scalar_type(), input.data_ptr(), values.data_ptr(), indices.data_ptr<int64_t>(), blocks,
                    blocks.size, descending);
}

}  // namespace tg
