// Advanced indexing (index.Tensor, index_put, index_put_) as compositions over index_select
// and index_add: the indexed dims are moved to the front and flattened into one dim, the
// index tensors become one linear index into it, and the result's index dims go back where
// LibTorch puts them. See Note [Advanced indexing as a composition].
#include <algorithm>
#include <numeric>

#include "NativeFunctions.h"
#include "core/wrap_dim.h"
#include "shape_utils.h"
#include "tensorgen/ops.h"

namespace tg::native {

// Note [Advanced indexing as a composition]
// For indices (i_0 .. i_{k-1}) on dims d_0 < .. < d_{k-1} of self, broadcast to shape B:
//   x      = self.permute(d_0 .. d_{k-1}, other dims).reshape({P, other sizes...}),
//            P = prod(size(d_j));
//   linear = sum_j wrap(i_j) * prod(size(d_{j+1}) .. size(d_{k-1}))        (shape B)
//   index  = x.index_select(0, linear.flatten()).reshape(B ++ other sizes)
// and when the d_j are adjacent, B moves to where d_0 was (LibTorch's rule; otherwise B stays
// in front). index_put writes x.index_add(0, linear, values) after clearing the written rows
// (accumulate=false) and undoes the permute. Gradients come from index_select/index_add's
// formulas, and every backend with those kernels runs these. With accumulate=false and a
// repeated position, LibTorch leaves which value wins unspecified; here they add up.

namespace {

struct IndexPlan {
  std::vector<int64_t> indexed_dims;  // d_0 < .. < d_{k-1}
  std::vector<Tensor> indices;        // int64, wrapped to [0, size), broadcast to B
  DimVector index_shape;              // B
  bool adjacent = true;               // d_j consecutive: B replaces them in place
};

// The (dim, positions) pairs a bool mask over dims [dim, dim + mask.dim()) stands for: one
// int64 tensor of positions per mask dim (mask.nonzero()'s columns), computed on the CPU.
std::vector<Tensor> mask_positions(const char* op, const Tensor& self, const Tensor& mask, int64_t dim) {
  for (int64_t d = 0; d < mask.dim(); ++d) {
    TG_CHECK_INDEX(dim + d < self.dim() && mask.size(d) == self.size(dim + d), "[", op,
                   "] The shape of the mask ", mask.sizes(), " at index ", d,
                   " does not match the shape of the indexed tensor ", self.sizes(), " at index ", dim + d);
  }
  Tensor host = mask.to(TensorOptions().device(Device(DeviceType::CPU)).dtype(kBool)).contiguous();
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
    for (int64_t d = mask.dim() - 1; d >= 0; --d) {  // next position, row-major
      if (++position[static_cast<size_t>(d)] < mask.size(d)) break;
      position[static_cast<size_t>(d)] = 0;
    }
  }
  for (Tensor& column : columns) column = column.to(TensorOptions().device(self.device()));
  return columns;
}

IndexPlan make_plan(const char* op, const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  int64_t consumed = 0;  // dims of self the indices cover
  for (const auto& index : indices) {
    consumed += (index && index->defined() && (index->scalar_type() == kBool || index->scalar_type() == kByte))
                    ? std::max<int64_t>(index->dim(), 1)
                    : 1;
  }
  TG_CHECK_INDEX(consumed <= self.dim(), "[", op, "] too many indices for tensor of dimension ",
                 self.dim(), " (got ", consumed, ")");
  IndexPlan plan;
  int64_t dim = 0;
  for (const auto& index : indices) {
    if (!index || !index->defined()) {
      ++dim;
      continue;
    }
    const ScalarType dtype = index->scalar_type();
    if (dtype == kBool || dtype == kByte) {
      for (Tensor& column : mask_positions(op, self, *index, dim)) {
        plan.indexed_dims.push_back(dim++);
        plan.indices.push_back(std::move(column));
      }
      continue;
    }
    TG_CHECK_TYPE(dtype == kLong || dtype == kInt, "[", op,
                  "] tensors used as indices must be long, int, byte or bool tensors, got ", dtype);
    TG_CHECK_VALUE(index->device() == self.device(), "[", op, "] indices are on ", index->device(),
                   " but the indexed tensor is on ", self.device());
    plan.indexed_dims.push_back(dim++);
    plan.indices.push_back(index->to(kLong));
  }
  TG_CHECK_INDEX(!plan.indices.empty(), "[", op, "] expected at least one defined index tensor");
  for (size_t j = 1; j < plan.indexed_dims.size(); ++j) {
    plan.adjacent = plan.adjacent && plan.indexed_dims[j] == plan.indexed_dims[j - 1] + 1;
  }
  plan.index_shape = DimVector(plan.indices[0].sizes());
  for (const Tensor& index : plan.indices) plan.index_shape = infer_broadcast_size(plan.index_shape, index.sizes(), op);
  for (size_t j = 0; j < plan.indices.size(); ++j) {
    const int64_t size = self.size(plan.indexed_dims[j]);
    Tensor& index = plan.indices[j];
    if (index.numel() > 0) {
      const int64_t low = index.amin().item<int64_t>();
      const int64_t high = index.amax().item<int64_t>();
      const int64_t bad = low < -size ? low : high;
      TG_CHECK_INDEX(low >= -size && high < size, "[", op, "] index ", bad, " is out of bounds for dimension ",
                     plan.indexed_dims[j], " with size ", size);
    }
    index = tg::where(index < 0, index + size, index).expand(plan.index_shape);
  }
  return plan;
}

// self's indexed dims first (in order), then the others.
std::vector<int64_t> front_order(const Tensor& self, const IndexPlan& plan) {
  std::vector<int64_t> order = plan.indexed_dims;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (std::find(order.begin(), order.end(), d) == order.end()) order.push_back(d);
  }
  return order;
}

// x of the Note: self with its indexed dims flattened into dim 0.
Tensor flatten_indexed(const Tensor& self, const IndexPlan& plan) {
  std::vector<int64_t> order = front_order(self, plan);
  Tensor moved = self.permute(order);
  std::vector<int64_t> shape{-1};
  for (size_t j = plan.indexed_dims.size(); j < order.size(); ++j) shape.push_back(self.size(order[j]));
  return moved.reshape(shape);
}

Tensor linear_index(const Tensor& self, const IndexPlan& plan) {
  Tensor linear = tg::zeros(plan.index_shape, TensorOptions().dtype(kLong).device(self.device()));
  int64_t stride = 1;
  for (size_t j = plan.indices.size(); j-- > 0;) {
    linear = linear + plan.indices[j] * stride;
    stride *= self.size(plan.indexed_dims[j]);
  }
  return linear.reshape({-1});
}

// The permutation that moves B (dims [0, nB) of a [B..., other...] tensor) to where d_0
// was, when the indexed dims are adjacent; identity otherwise.
std::vector<int64_t> result_order(int64_t result_dim, const IndexPlan& plan) {
  std::vector<int64_t> order(static_cast<size_t>(result_dim));
  std::iota(order.begin(), order.end(), 0);
  const int64_t first = plan.indexed_dims.front();
  if (!plan.adjacent || first == 0) return order;
  const auto nb = static_cast<int64_t>(plan.index_shape.size());
  order.clear();
  for (int64_t d = 0; d < first; ++d) order.push_back(nb + d);
  for (int64_t d = 0; d < nb; ++d) order.push_back(d);
  for (int64_t d = nb + first; d < result_dim; ++d) order.push_back(d);
  return order;
}

std::vector<int64_t> inverse(const std::vector<int64_t>& order) {
  std::vector<int64_t> result(order.size());
  for (size_t i = 0; i < order.size(); ++i) result[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
  return result;
}

// [B..., other...]: the shape index_select gives before result_order is applied.
std::vector<int64_t> front_shape(const Tensor& x, const IndexPlan& plan) {
  std::vector<int64_t> shape(plan.index_shape.begin(), plan.index_shape.end());
  for (int64_t d = 1; d < x.dim(); ++d) shape.push_back(x.size(d));
  return shape;
}

}  // namespace

Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  const IndexPlan plan = make_plan("index", self, indices);
  Tensor x = flatten_indexed(self, plan);
  Tensor gathered = x.index_select(0, linear_index(self, plan)).reshape(front_shape(x, plan));
  return gathered.permute(result_order(gathered.dim(), plan));
}

Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                 bool accumulate) {
  TG_CHECK_TYPE(values.scalar_type() == self.scalar_type(), "[index_put] Index put requires the source and ",
                "destination dtypes match, got ", self.scalar_type(), " for the destination and ",
                values.scalar_type(), " for the source.");
  const IndexPlan plan = make_plan("index_put", self, indices);
  Tensor x = flatten_indexed(self, plan);
  const Tensor linear = linear_index(self, plan);
  const std::vector<int64_t> shape = front_shape(x, plan);
  const std::vector<int64_t> order = result_order(static_cast<int64_t>(shape.size()), plan);
  std::vector<int64_t> result_shape;
  for (int64_t d : order) result_shape.push_back(shape[static_cast<size_t>(d)]);
  std::vector<int64_t> row_shape{linear.numel()};
  for (int64_t d = 1; d < x.dim(); ++d) row_shape.push_back(x.size(d));
  const Tensor rows = values.expand(result_shape).permute(inverse(order)).reshape(row_shape);
  if (!accumulate) {
    std::vector<int64_t> hit_shape(static_cast<size_t>(x.dim()), 1);
    hit_shape[0] = x.size(0);
    Tensor hits = tg::zeros({x.size(0)}, TensorOptions().dtype(kLong).device(self.device()))
                      .index_add(0, linear, tg::ones({linear.numel()}, TensorOptions().dtype(kLong).device(self.device())));
    x = x.masked_fill(hits.gt(0).view(hit_shape), 0);
  }
  Tensor written = x.index_add(0, linear, rows);
  std::vector<int64_t> moved_shape;
  const std::vector<int64_t> front = front_order(self, plan);
  for (int64_t d : front) moved_shape.push_back(self.size(d));
  return written.reshape(moved_shape).permute(inverse(front));
}

Tensor index_put_(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                  bool accumulate) {
  self.copy_(tg::index_put(self, indices, values, accumulate));
  return self;
}

}  // namespace tg::native
