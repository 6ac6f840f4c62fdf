// CPU kernels of cat: each input is copied, converted to the result dtype, into its slice of
// the output. With the output seen as [outer, size, inner] blocks around dim, input t fills
// the rows [offset_t, offset_t + t.size(dim)) of every block: one memcpy per input per block.
#include <cstring>
#include <vector>

#include "NativeFunctions.h"
#include "core/wrap_dim.h"
#include "cpu/copy.h"
#include "dim_blocks.h"
#include "nn_rules.h"
#include "ops/structured.h"

namespace tg {

Tensor native::cat_cpu(TensorList tensors, int64_t dim) {
  const CatShape shape = check_cat(tensors, dim);
  Tensor out = make_empty_tensor(shape.sizes, shape.dtype, tensors[0].device());
  if (out.numel() == 0) return out;
  const DimBlocks blocks = blocks_around(out.sizes(), shape.dim);
  const int64_t item = out.element_size();
  char* dst = static_cast<char*>(out.data_ptr());
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (is_legacy_empty(t)) continue;
    const Tensor src = cpu::contiguous_as(t, shape.dtype);
    const int64_t rows = t.size(shape.dim);
    const size_t bytes = static_cast<size_t>(rows * blocks.inner * item);
    const char* from = static_cast<const char*>(src.data_ptr());
    for (int64_t o = 0; bytes > 0 && o < blocks.outer; ++o) {
      std::memcpy(dst + ((o * blocks.size + offset) * blocks.inner) * item, from + o * bytes, bytes);
    }
    offset += rows;
  }
  return out;
}

Tensor native::cat_out_cpu(TensorList tensors, int64_t dim, const Tensor& out) {
  Tensor result = cat_cpu(tensors, dim);
  TG_CHECK_TYPE(can_cast(result.scalar_type(), out.scalar_type()), "[cat] result type ", result.scalar_type(),
                " can't be cast to the desired output type ", out.scalar_type());
  resize_output(out, result.sizes());
  cpu::copy_into(out, result);
  return out;
}

}  // namespace tg
