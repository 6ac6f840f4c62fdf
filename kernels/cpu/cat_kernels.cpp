// CPU kernels of cat: each input is copied, converted to the result dtype, into its slice of
// the output. With the output seen as [outer, size, inner] blocks around dim, input t fills
// the rows [offset_t, offset_t + t.size(dim)) of every block: one memcpy per input per block.
#include <cstring>
#include <vector>

#include "NativeFunctions.h"
#include "core/wrap_dim.h"
#include "cpu/copy.h"
#include "cpu/dim_blocks.h"
#include "ops/structured.h"

namespace tg {

namespace {

// A legacy empty tensor: shape [0], skipped by cat whatever the other shapes (as PyTorch).
bool is_legacy_empty(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

}  // namespace

Tensor native::cat_cpu(TensorList tensors, int64_t dim) {
  TG_CHECK_VALUE(!tensors.empty(), "[cat] expected a non-empty list of Tensors");
  ResultTypeState promotion;
  const Tensor* reference = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TG_CHECK_VALUE(t.dim() > 0, "[cat] zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    TG_CHECK(t.device() == tensors[0].device(), "[cat] expected all tensors on one device, got ", tensors[0].device(),
             " (position 0) and ", t.device(), " (position ", i, ")");
    promotion.add_tensor(t.scalar_type(), t.dim());
    if (reference == nullptr && !is_legacy_empty(t)) reference = &t;
  }
  const ScalarType dtype = promotion.result();
  if (reference == nullptr) return make_empty_tensor(tensors[0].sizes(), dtype, tensors[0].device());
  dim = maybe_wrap_dim(dim, reference->dim(), "cat");
  DimVector sizes(reference->sizes());
  sizes[static_cast<size_t>(dim)] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (is_legacy_empty(t)) continue;
    TG_CHECK_VALUE(t.dim() == reference->dim(), "[cat] tensors must have same number of dimensions: got ",
                   reference->dim(), " and ", t.dim(), " (tensor number ", i, " in the list)");
    for (int64_t d = 0; d < t.dim(); ++d) {
      TG_CHECK_VALUE(d == dim || t.size(d) == reference->size(d), "[cat] sizes of tensors must match except in ",
                     "dimension ", dim, ". Expected size ", reference->size(d), " but got size ", t.size(d),
                     " for tensor number ", i, " in the list");
    }
    sizes[static_cast<size_t>(dim)] += t.size(dim);
  }
  Tensor out = make_empty_tensor(sizes, dtype, reference->device());
  if (out.numel() == 0) return out;
  const cpu::DimBlocks blocks = cpu::blocks_around(out.sizes(), dim);
  const int64_t item = out.element_size();
  char* dst = static_cast<char*>(out.data_ptr());
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (is_legacy_empty(t)) continue;
    const Tensor src = cpu::contiguous_as(t, dtype);
    const int64_t rows = t.size(dim);
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
