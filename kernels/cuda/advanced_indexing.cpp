// The native:: CUDA kernels of advanced indexing (index.Tensor, index_put_): the plan of
// kernels/advanced_index.h, flattened for the kernels of advanced_index_ops.cu. Index values are
// checked on the device and reported before and after each launch without waiting for it
// (Note [Index checks on the device] in docs/cuda.md); only bool masks are read back (their
// positions decide the result's shape).
#include "NativeFunctions.h"
#include "advanced_index.h"
#include "cuda/advanced_index_ops.h"
#include "cuda/index_check.h"
#include "ops/structured.h"
#include "tensorgen/ops.h"

namespace tg {

namespace {

cuda::AdvancedIndexArgs advanced_index_args(const char* op, const AdvancedIndex& plan, IntArrayRef other_strides) {
  cuda::AdvancedIndexArgs args;
  const auto ndim = static_cast<int64_t>(plan.result_sizes.size());
  TG_CHECK(ndim <= cuda::kMaxAdvancedDims, "[", op, "] CUDA kernels take results of at most ", cuda::kMaxAdvancedDims,
           " dims, got ", IntArrayRef(plan.result_sizes));
  TG_CHECK(static_cast<int64_t>(plan.indices.size()) <= cuda::kMaxAdvancedIndices, "[", op, "] CUDA kernels take at most ",
           cuda::kMaxAdvancedIndices, " index tensors (a mask counts one per dim), got ", plan.indices.size());
  args.ndim = static_cast<int>(std::max<int64_t>(ndim, 1));  // a 0-dim R is one position
  args.count = static_cast<int>(plan.indices.size());
  args.numel = 1;
  args.sizes[0] = 1;
  for (int64_t r = 0; r < ndim; ++r) {
    args.sizes[r] = plan.result_sizes[static_cast<size_t>(r)];
    args.self_strides[r] = plan.self_strides[static_cast<size_t>(r)];
    args.other_strides[r] = other_strides[static_cast<size_t>(r)];
    args.numel *= args.sizes[r];
  }
  for (size_t j = 0; j < plan.indices.size(); ++j) {
    args.index[j] = plan.indices[j].data_ptr<int64_t>();
    for (int64_t r = 0; r < ndim; ++r) args.index_strides[j][r] = plan.index_strides[j][static_cast<size_t>(r)];
    args.indexed_sizes[j] = plan.indexed_sizes[j];
    args.indexed_strides[j] = plan.indexed_strides[j];
    args.indexed_dims[j] = plan.indexed_dims[j];
  }
  return args;
}

}  // namespace

Tensor native::index_cuda(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  const AdvancedIndex plan = make_advanced_index("index", self, indices);
  cuda::check_index_errors();
  Tensor out = make_empty_tensor(plan.result_sizes, self.scalar_type(), self.device());
  cuda::launch_advanced_index(static_cast<size_t>(self.element_size()), self.data_ptr(), out.data_ptr(),
                              advanced_index_args("index", plan, out.strides()));
  cuda::check_index_errors();
  return out;
}

Tensor native::index_out_cuda(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& out) {
  TG_CHECK_TYPE(out.scalar_type() == self.scalar_type(), "[index.Tensor_out] self (", self.scalar_type(),
                ") and out (", out.scalar_type(), ") must have the same scalar type");
  const Tensor result = index_cuda(self, indices);
  resize_output(out, result.sizes());
  out.copy_(result);
  return out;
}

Tensor native::index_put_cuda_(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                               const Tensor& values, bool accumulate) {
  const AdvancedIndex plan = make_advanced_index("index_put_", self, indices);
  check_index_put_values(self, values, plan);
  cuda::check_index_errors();
  const Tensor source = values.expand(plan.result_sizes);
  cuda::launch_advanced_index_put(self.scalar_type(), self.data_ptr(), source.data_ptr(),
                                  advanced_index_args("index_put_", plan, source.strides()), accumulate);
  cuda::check_index_errors();
  return self;
}

}  // namespace tg
