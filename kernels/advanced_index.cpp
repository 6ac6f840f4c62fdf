// The plan of an advanced-indexing call (advanced_index.h).
#include "advanced_index.h"

#include <algorithm>

#include "TensorMethods.h"
#include "shape_utils.h"
#include "tensorgen/ops.h"

namespace tg {

namespace {

bool is_mask(ScalarType dtype) { return dtype == kBool || dtype == kByte; }

// The positions a mask over self's dims [dim, dim + mask.dim()) stands for: one int64 tensor per
// mask dim (the columns of mask.nonzero()), on `device`. Read on the host (a CUDA mask is copied).
std::vector<Tensor> mask_positions(const char* op, const Tensor& self, const Tensor& mask, int64_t dim) {
  for (int64_t d = 0; d < mask.dim(); ++d) {
    TG_CHECK_INDEX(dim + d < self.dim() && mask.size(d) == self.size(dim + d), "[", op, "] The shape of the mask ",
                   mask.sizes(), " at index ", d, " does not match the shape of the indexed tensor ", self.sizes(),
                   " at index ", dim + d);
  }
  const Tensor host = mask.to(TensorOptions().device(Device(kCPU)).dtype(kBool)).contiguous();
  const bool* values = host.data_ptr<bool>();
  const int64_t count = std::count(values, values + host.numel(), true);
  std::vector<Tensor> columns;
  std::vector<int64_t*> column_data;
  for (int64_t d = 0; d < mask.dim(); ++d) {
    columns.push_back(tg::empty({count}, TensorOptions().dtype(kLong)));
    column_data.push_back(columns.back().data_ptr<int64_t>());
  }
  DimVector position(static_cast<size_t>(mask.dim()), 0);
  int64_t row = 0;
  for (int64_t flat = 0; flat < host.numel(); ++flat) {
    if (values[flat]) {
      for (size_t d = 0; d < position.size(); ++d) column_data[d][row] = position[d];
      ++row;
    }
    for (int64_t d = mask.dim() - 1; d >= 0; --d) {  // the next position, row-major
      if (++position[static_cast<size_t>(d)] < mask.size(d)) break;
      position[static_cast<size_t>(d)] = 0;
    }
  }
  for (Tensor& column : columns) column = column.to(TensorOptions().device(self.device()));
  return columns;
}

// Every dim of self the entries cover: a mask covers its dims (at least one), a tensor one.
int64_t covered_dims(const std::vector<std::optional<Tensor>>& indices) {
  int64_t covered = 0;
  for (const auto& index : indices) {
    covered += index && index->defined() && is_mask(index->scalar_type()) ? std::max<int64_t>(index->dim(), 1) : 1;
  }
  return covered;
}

}  // namespace

AdvancedIndex make_advanced_index(const char* op, const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  const int64_t covered = covered_dims(indices);
  TG_CHECK_INDEX(covered <= self.dim(), "[", op, "] too many indices for tensor of dimension ", self.dim(), " (got ",
                 covered, ")");
  AdvancedIndex plan;
  int64_t dim = 0;
  for (const auto& index : indices) {
    if (!index || !index->defined()) {
      ++dim;
      continue;
    }
    const ScalarType dtype = index->scalar_type();
    const Device device = index->device();
    TG_CHECK_VALUE(device == self.device() || device.is_cpu(), "[", op, "] indices should be either on cpu or on the ",
                   "same device as the indexed tensor (", self.device(), "), got an index on ", device);
    if (is_mask(dtype)) {
      const Tensor mask = index->dim() == 0 ? index->reshape({1}) : *index;
      for (Tensor& column : mask_positions(op, self, mask, dim)) {
        plan.indexed_dims.push_back(dim++);
        plan.indices.push_back(std::move(column));
      }
      continue;
    }
    TG_CHECK_TYPE(dtype == kLong || dtype == kInt, "[", op,
                  "] tensors used as indices must be long, int, byte or bool tensors, got ", dtype);
    plan.indexed_dims.push_back(dim++);
    plan.indices.push_back(index->to(TensorOptions().device(self.device()).dtype(kLong)).contiguous());
  }
  TG_CHECK_INDEX(!plan.indices.empty(), "[", op, "] expected at least one defined index tensor, got ", indices.size(),
                 " entries that are all None");

  DimVector index_shape(plan.indices[0].sizes());
  for (const Tensor& index : plan.indices) index_shape = infer_broadcast_size(index_shape, index.sizes(), op);
  bool adjacent = true;
  for (size_t j = 1; j < plan.indexed_dims.size(); ++j) {
    adjacent = adjacent && plan.indexed_dims[j] == plan.indexed_dims[j - 1] + 1;
  }
  for (size_t j = 0; j < plan.indexed_dims.size(); ++j) {
    plan.indexed_sizes.push_back(self.size(plan.indexed_dims[j]));
    plan.indexed_strides.push_back(self.stride(plan.indexed_dims[j]));
  }

  // R: the other dims of self in order, with B inserted where d_0 was (adjacent) or in front.
  const auto nb = static_cast<int64_t>(index_shape.size());
  const int64_t b_start = adjacent ? plan.indexed_dims[0] : 0;
  std::vector<int64_t> other_dims;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (std::find(plan.indexed_dims.begin(), plan.indexed_dims.end(), d) == plan.indexed_dims.end()) {
      other_dims.push_back(d);
    }
  }
  const int64_t ndim = static_cast<int64_t>(other_dims.size()) + nb;
  std::vector<DimVector> b_strides;  // each index's strides over B
  for (const Tensor& index : plan.indices) b_strides.push_back(expand_strides(index.sizes(), index.strides(), index_shape, op));
  plan.index_strides.assign(plan.indices.size(), DimVector(static_cast<size_t>(ndim), 0));
  size_t next_other = 0;
  for (int64_t r = 0; r < ndim; ++r) {
    if (r >= b_start && r < b_start + nb) {
      const auto b = static_cast<size_t>(r - b_start);
      plan.result_sizes.push_back(index_shape[b]);
      plan.self_strides.push_back(0);
      for (size_t j = 0; j < plan.indices.size(); ++j) plan.index_strides[j][static_cast<size_t>(r)] = b_strides[j][b];
    } else {
      const int64_t d = other_dims[next_other++];
      plan.result_sizes.push_back(self.size(d));
      plan.self_strides.push_back(self.stride(d));
    }
  }
  return plan;
}

void check_advanced_index_bounds(const char* op, const AdvancedIndex& plan) {
  for (size_t j = 0; j < plan.indices.size(); ++j) {
    const Tensor host = plan.indices[j].is_cpu() ? plan.indices[j] : plan.indices[j].to(Device(kCPU));
    const int64_t* values = host.data_ptr<int64_t>();
    const int64_t size = plan.indexed_sizes[j];
    for (int64_t k = 0; k < host.numel(); ++k) {
      TG_CHECK_INDEX(values[k] >= -size && values[k] < size, "[", op, "] index ", values[k],
                     " is out of bounds for dimension ", plan.indexed_dims[j], " with size ", size);
    }
  }
}

void check_index_put_values(const Tensor& self, const Tensor& values, const AdvancedIndex& plan) {
  TG_CHECK_TYPE(values.scalar_type() == self.scalar_type(), "[index_put_] Index put requires the source and ",
                "destination dtypes match, got ", self.scalar_type(), " for the destination and ",
                values.scalar_type(), " for the source.");
  TG_CHECK_VALUE(values.device() == self.device(), "[index_put_] values are on ", values.device(),
                 " but the indexed tensor is on ", self.device());
  bool fits = values.dim() <= static_cast<int64_t>(plan.result_sizes.size());
  for (int64_t d = 1; fits && d <= values.dim(); ++d) {
    const int64_t have = values.size(-d), want = plan.result_sizes[plan.result_sizes.size() - static_cast<size_t>(d)];
    fits = have == want || have == 1;
  }
  TG_CHECK_VALUE(fits, "[index_put_] shape mismatch: value tensor of shape ", values.sizes(),
                 " cannot be broadcast to indexing result of shape ", IntArrayRef(plan.result_sizes));
}

}  // namespace tg
