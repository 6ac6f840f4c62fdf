// The argument rules of the indexing kernels (index_rules.h).
#include "index_rules.h"

#include "TensorMethods.h"
#include "cpu/copy.h"
#include "shape_utils.h"

namespace tg {

Tensor index_on_cpu(const Tensor& index) {
  return cpu::contiguous_as(index.is_cpu() ? index : index.to(Device(kCPU)), kLong);
}

void check_index_kind(const char* op, const Tensor& index) {
  TG_CHECK_TYPE(index.scalar_type() == kLong || index.scalar_type() == kInt, "[", op, "] expected index of dtype ",
                "int64 or int32, got ", index.scalar_type());
  TG_CHECK_VALUE(index.dim() <= 1, "[", op, "] index must be a vector or a scalar, got a tensor of shape ",
                 index.sizes());
}

Tensor check_index(const char* op, const Tensor& index, int64_t size) {
  check_index_kind(op, index);
  Tensor index_t = index_on_cpu(index);
  const int64_t* data = index_t.data_ptr<int64_t>();
  for (int64_t k = 0; k < index_t.numel(); ++k) {
    TG_CHECK_INDEX(data[k] >= 0 && data[k] < size, "[", op, "] index ", data[k], " is out of range for a dim of size ",
                   size);
  }
  return index_t;
}

DimVector index_select_sizes(const Tensor& self, int64_t dim, const Tensor& index) {
  TG_CHECK_VALUE(self.dim() > 0 || index.numel() == 1, "[index_select] index to a 0-dim tensor can have only 1 ",
                 "value, got ", index.numel());
  DimVector sizes(self.sizes());
  if (self.dim() > 0) sizes[static_cast<size_t>(dim)] = index.numel();
  return sizes;
}

void check_index_select_out(const Tensor& self, const Tensor& out) {
  TG_CHECK_TYPE(out.scalar_type() == self.scalar_type(), "[index_select] self (", self.scalar_type(), ") and out (",
                out.scalar_type(), ") must have the same scalar type");
}

Tensor check_gather_index(const char* op, const Tensor& index, int64_t dim, int64_t bound) {
  Tensor index_t = index_on_cpu(index);
  const int64_t* data = index_t.data_ptr<int64_t>();
  for (int64_t i = 0; i < index_t.numel(); ++i) {
    TG_CHECK_INDEX(data[i] >= 0 && data[i] < bound, "[", op, "] index ", data[i], " is out of bounds for dimension ",
                   dim, " with size ", bound);
  }
  return index_t;
}

Tensor check_max_pool_indices(const char* op, const Tensor& indices, int64_t plane_size) {
  Tensor index_t = index_on_cpu(indices);
  const int64_t* data = index_t.data_ptr<int64_t>();
  for (int64_t i = 0; i < index_t.numel(); ++i) {
    TG_CHECK_INDEX(data[i] >= 0 && data[i] < plane_size, "[", op, "] index ", data[i],
                   " is out of range for an input plane of ", plane_size, " elements");
  }
  return index_t;
}

void check_masked_fill(const Tensor& self, const Tensor& mask) {
  TG_CHECK_TYPE(mask.scalar_type() == kBool, "[masked_fill_] only supports boolean masks, but got mask with dtype ",
                mask.scalar_type());
  TG_CHECK_VALUE(IntArrayRef(infer_broadcast_size(self.sizes(), mask.sizes(), "masked_fill_")) == self.sizes(),
                 "[masked_fill_] ",
                 "mask of shape ", mask.sizes(), " does not broadcast to self's shape ", self.sizes());
}

}  // namespace tg
