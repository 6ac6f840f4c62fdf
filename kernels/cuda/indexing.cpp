// The native:: CUDA kernels of the indexing and shape operators (schemas/indexing.yaml,
// shape.yaml): index_select, index_add, gather, scatter_add, masked_fill_, cat, tril and triu.
// Arguments are checked by the CPU kernels' rules (index_rules.h, nn_rules.h); index values by
// the kernels themselves, reported before and after each launch without waiting for the
// device (Note [Index checks on the device] in docs/cuda.md).
#include "NativeFunctions.h"
#include "core/wrap_dim.h"
#include "cuda/cuda_guard.h"
#include "cuda/elementwise_host.h"
#include "cuda/index_check.h"
#include "cuda/index_ops.h"
#include "cuda/pointwise_ops.h"
#include "index_rules.h"
#include "nn_rules.h"
#include "ops/structured.h"
#include "tensorgen/ops.h"

namespace tg {

namespace {

// The walk over index's shape of gather and scatter_add (a 0-dim tensor counts as shape [1]).
cuda::GatherArgs gather_args(const char* op, const Tensor& index, int64_t dim, const Tensor& indexed,
                             const Tensor& other) {
  cuda::GatherArgs args;
  args.ndim = static_cast<int>(std::max<int64_t>(index.dim(), 1));
  TG_CHECK(args.ndim <= cuda::kMaxIndexDims, "[", op, "] CUDA kernels take at most ", cuda::kMaxIndexDims,
           " dims, got an index of shape ", index.sizes());
  args.dim = static_cast<int>(dim);
  args.numel = index.numel();
  args.bound = indexed.dim() == 0 ? 1 : indexed.size(dim);
  for (int d = 0; d < args.ndim; ++d) {
    args.sizes[d] = index.dim() == 0 ? 1 : index.size(d);
    args.indexed_strides[d] = indexed.dim() == 0 ? 0 : indexed.stride(d);
    args.other_strides[d] = other.dim() == 0 ? 0 : other.stride(d);
  }
  return args;
}

void triangle_out(bool lower, const Tensor& self, int64_t diagonal, const Tensor& out) {
  if (out.numel() == 0) return;
  const int64_t rows = out.size(-2), cols = out.size(-1);
  const Tensor input = cuda::contiguous_as(self, out.scalar_type());  // out itself when in place
  cuda::launch_triangle(out.element_size(), input.data_ptr(), out.data_ptr(), out.numel() / (rows * cols), rows, cols,
                        diagonal, lower);
}

}  // namespace

Tensor native::index_select_cuda(const Tensor& self, int64_t dim, const Tensor& index) {
  dim = maybe_wrap_dim(dim, self.dim(), "index_select");
  const DimVector sizes = index_select_sizes(self, dim, index);
  check_index_kind("index_select", index);
  cuda::check_index_errors();
  Tensor out = make_empty_tensor(sizes, self.scalar_type(), self.device());
  if (out.numel() == 0) return out;
  const Tensor input = cuda::contiguous_as(self, self.scalar_type());
  const Tensor index_t = cuda::int64_on(index, self.device());
  const DimBlocks blocks = blocks_around(input.sizes(), dim);
  cuda::launch_index_select(static_cast<size_t>(input.element_size()), input.data_ptr(), out.data_ptr(),
                            index_t.data_ptr<int64_t>(), blocks, index_t.numel());
  cuda::check_index_errors();
  return out;
}

Tensor native::index_select_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  check_index_select_out(self, out);
  const Tensor result = index_select_cuda(self, dim, index);
  resize_output(out, result.sizes());
  out.copy_(result);
  return out;
}

void native::index_add_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                                const Scalar& alpha, const Tensor& out) {
  dim = maybe_wrap_dim(dim, self.dim(), "index_add");
  const DimBlocks blocks = blocks_around(out.sizes(), dim);
  check_index_kind("index_add", index);
  cuda::check_index_errors();
  if (!out.is_same(self)) out.copy_(self);
  const Tensor source_t = cuda::contiguous_as(source, out.scalar_type());
  const Tensor index_t = cuda::int64_on(index, out.device());
  cuda::launch_index_add(out.scalar_type(), out.data_ptr(), source_t.data_ptr(), index_t.data_ptr<int64_t>(), blocks,
                         index_t.numel(), cuda::scalar_value(alpha));
  cuda::check_index_errors();
}

void native::gather_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/,
                             const Tensor& out) {
  dim = maybe_wrap_dim(dim, self.dim(), "gather");
  cuda::check_index_errors();
  const Tensor index_t = cuda::int64_on(index, out.device());
  cuda::launch_gather(static_cast<size_t>(out.element_size()), self.data_ptr(), out.data_ptr(),
                      index_t.data_ptr<int64_t>(), gather_args("gather", index, dim, self, out));
  cuda::check_index_errors();
}

void native::scatter_add_out_cuda(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                  const Tensor& out) {
  dim = maybe_wrap_dim(dim, self.dim(), "scatter_add");
  if (!out.is_same(self)) out.copy_(self);
  cuda::check_index_errors();
  const Tensor index_t = cuda::int64_on(index, out.device());
  const Tensor src_t = src.scalar_type() == out.scalar_type() ? src : src.to(out.scalar_type());
  cuda::launch_scatter_add(out.scalar_type(), out.data_ptr(), src_t.data_ptr(), index_t.data_ptr<int64_t>(),
                           gather_args("scatter_add", index, dim, out, src_t));
  cuda::check_index_errors();
}

Tensor native::masked_fill_cuda_(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_masked_fill(self, mask);
  cuda::ElementwiseLaunch launch("masked_fill_", self, self.scalar_type(), {{self, self.scalar_type()}, {mask, kBool}});
  cuda::launch_masked_fill(self.scalar_type(), launch.args(), cuda::scalar_value(value));
  launch.finish();
  return self;
}

// Each input is copied, converted, into its slice of the output (the CUDA copy kernel).
Tensor native::cat_cuda(TensorList tensors, int64_t dim) {
  const CatShape shape = check_cat(tensors, dim);
  const cuda::CUDAGuard guard(tensors[0].device());
  Tensor out = make_empty_tensor(shape.sizes, shape.dtype, tensors[0].device());
  if (out.numel() == 0) return out;
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (is_legacy_empty(t)) continue;
    const int64_t rows = t.size(shape.dim);
    if (rows > 0) out.narrow(shape.dim, offset, rows).copy_(t);
    offset += rows;
  }
  return out;
}

Tensor native::cat_out_cuda(TensorList tensors, int64_t dim, const Tensor& out) {
  const Tensor result = cat_cuda(tensors, dim);
  TG_CHECK_TYPE(can_cast(result.scalar_type(), out.scalar_type()), "[cat] result type ", result.scalar_type(),
                " can't be cast to the desired output type ", out.scalar_type());
  resize_output(out, result.sizes());
  out.copy_(result);
  return out;
}

void native::tril_out_cuda(const Tensor& self, int64_t diagonal, const Tensor& out) {
  triangle_out(true, self, diagonal, out);
}

void native::triu_out_cuda(const Tensor& self, int64_t diagonal, const Tensor& out) {
  triangle_out(false, self, diagonal, out);
}

}  // namespace tg
