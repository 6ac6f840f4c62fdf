// The native:: CUDA kernels of the reductions (schemas/reduction.yaml): sum, mean, amax, amin,
// max.dim, argmax, var and std, each of which describes its input as ReduceArgs and calls
// launch_reduce (launch_variance); and of cumsum and topk (schemas/scan_sort.yaml), which work
// along one dim (dim_ops.h). Like the CPU's sum, the elements are converted to the out dtype
// first (sum(int32) sums int64s).
#include "NativeFunctions.h"
#include "cuda/dim_ops.h"
#include "cuda/elementwise_host.h"
#include "cuda/reduce_args.h"
#include "dim_blocks.h"
#include "shape_utils.h"
#include "tensorgen/ops.h"

namespace tg {

namespace {

// Appends dims [first, last) of the group, innermost first, merging a dim into the one inside
// it when their strides allow (stride_outer == stride_inner * size_inner).
void add_dims(const char* op, int& ndim, int64_t* sizes, int64_t* strides, int64_t size, int64_t stride) {
  if (size == 1) return;
  if (ndim > 0 && stride == strides[ndim - 1] * sizes[ndim - 1]) {
    sizes[ndim - 1] *= size;
    return;
  }
  TG_CHECK(ndim < cuda::kMaxReduceDims, "[", op, "] CUDA reductions take at most ", cuda::kMaxReduceDims,
           " kept and ", cuda::kMaxReduceDims, " reduced dims once contiguous dims are merged");
  sizes[ndim] = size;
  strides[ndim] = stride;
  ++ndim;
}

// The ReduceArgs of reducing `input` over `mask` into the contiguous `out` (and `indices`).
cuda::ReduceArgs reduce_args(const char* op, const Tensor& input, const DimMask& mask, const Tensor& out,
                             const Tensor* indices) {
  cuda::ReduceArgs args;
  args.input = input.data_ptr();
  args.num_outputs = 1;
  args.reduce_size = 1;
  for (int64_t d = input.dim(); d-- > 0;) {
    const int64_t size = input.sizes()[d], stride = input.strides()[d];
    if (mask.test(static_cast<size_t>(d))) {
      args.reduce_size *= size;
      add_dims(op, args.red_ndim, args.red_sizes, args.red_strides, size, stride);
    } else {
      args.num_outputs *= size;
      add_dims(op, args.out_ndim, args.out_sizes, args.out_strides, size, stride);
    }
  }
  if (args.reduce_size == 0) args.red_ndim = 0;  // nothing to read: each output is the identity
  args.out = out.defined() ? out.data_ptr() : nullptr;
  args.indices = indices != nullptr ? indices->data_ptr<int64_t>() : nullptr;
  return args;
}

// `self` with the elements converted to `dtype` (on the device) when they are of another one.
Tensor in_dtype(const Tensor& self, ScalarType dtype) { return self.scalar_type() == dtype ? self : self.to(dtype); }

void reduce_out(cuda::ReduceOp op, const char* name, const Tensor& self, const DimMask& mask, const Tensor& out) {
  const Tensor input = in_dtype(self, out.scalar_type());
  cuda::launch_reduce(op, out.scalar_type(), reduce_args(name, input, mask, out, nullptr), name);
}

}  // namespace

void native::sum_out_cuda(const Tensor& self, OptionalIntArrayRef dim, bool /*keepdim*/,
                          std::optional<ScalarType> /*dtype*/, const Tensor& out) {
  reduce_out(cuda::ReduceOp::Sum, "sum", self, make_dim_mask(dim, self.dim(), "sum"), out);
}

void native::mean_out_cuda(const Tensor& self, OptionalIntArrayRef dim, bool /*keepdim*/,
                           std::optional<ScalarType> /*dtype*/, const Tensor& out) {
  reduce_out(cuda::ReduceOp::Mean, "mean", self, make_dim_mask(dim, self.dim(), "mean"), out);
}

void native::amax_out_cuda(const Tensor& self, IntArrayRef dim, bool /*keepdim*/, const Tensor& out) {
  reduce_out(cuda::ReduceOp::Max, "amax", self, make_dim_mask(dim, self.dim(), "amax"), out);
}

void native::amin_out_cuda(const Tensor& self, IntArrayRef dim, bool /*keepdim*/, const Tensor& out) {
  reduce_out(cuda::ReduceOp::Min, "amin", self, make_dim_mask(dim, self.dim(), "amin"), out);
}

// `max` receives the values and `max_values` the indices (the schema's out names).
void native::max_out_cuda(const Tensor& self, int64_t dim, bool /*keepdim*/, const Tensor& max,
                          const Tensor& max_values) {
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "max");
  const DimMask mask = make_dim_mask(IntArrayRef(d), self.dim(), "max");
  cuda::launch_reduce(cuda::ReduceOp::ArgMax, self.scalar_type(), reduce_args("max", self, mask, max, &max_values),
                      "max");
}

// Without a dim, argmax indexes the flattened tensor: every dim is reduced, and the reduced
// index is the row-major position.
void native::argmax_out_cuda(const Tensor& self, std::optional<int64_t> dim, bool /*keepdim*/, const Tensor& out) {
  const DimMask mask = dim.has_value() ? make_dim_mask(IntArrayRef(maybe_wrap_dim(*dim, self.dim(), "argmax")),
                                                       self.dim(), "argmax")
                                       : make_dim_mask(std::nullopt, self.dim(), "argmax");
  cuda::launch_reduce(cuda::ReduceOp::ArgMax, self.scalar_type(), reduce_args("argmax", self, mask, Tensor(), &out),
                      "argmax");
}

// var and std read the input in double, as the CPU does (kernels/cpu/variance_kernels.cpp).
void native::var_out_cuda(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
                          bool /*keepdim*/, const Tensor& out) {
  const DimMask mask = make_dim_mask(dim, self.dim(), "var");
  cuda::launch_variance(out.scalar_type(), reduce_args("var", in_dtype(self, kDouble), mask, out, nullptr),
                        correction ? correction->toDouble() : 1.0, /*take_sqrt=*/false, "var");
}

void native::std_out_cuda(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
                          bool /*keepdim*/, const Tensor& out) {
  const DimMask mask = make_dim_mask(dim, self.dim(), "std");
  cuda::launch_variance(out.scalar_type(), reduce_args("std", in_dtype(self, kDouble), mask, out, nullptr),
                        correction ? correction->toDouble() : 1.0, /*take_sqrt=*/true, "std");
}

void native::cumsum_out_cuda(const Tensor& self, int64_t dim, std::optional<ScalarType> /*dtype*/, const Tensor& out) {
  const DimBlocks blocks = blocks_around(self.sizes(), maybe_wrap_dim(dim, self.dim(), "cumsum"));
  if (out.numel() == 0) return;
  const Tensor input = cuda::contiguous_as(self, out.scalar_type());
  cuda::launch_cumsum(out.scalar_type(), input.data_ptr(), out.data_ptr(), blocks);
}

void native::topk_out_cuda(const Tensor& self, int64_t k, int64_t dim, bool largest, bool /*sorted*/,
                           const Tensor& values, const Tensor& indices) {
  const DimBlocks blocks = blocks_around(self.sizes(), maybe_wrap_dim(dim, self.dim(), "topk"));
  if (values.numel() == 0) return;
  const Tensor input = cuda::contiguous_as(self, self.scalar_type());
  cuda::launch_topk(self.scalar_type(), input.data_ptr(), values.data_ptr(), indices.data_ptr<int64_t>(), blocks, k,
                    largest);
}

}  // namespace tg
