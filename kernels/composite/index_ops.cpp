// index_fill, index_copy and scatter (schemas/index_ops.yaml) over masked_fill, index_add and
// scatter_add. The indices decide which positions are written, so they are read on the host
// (checked there, with LibTorch's messages); the masks built from them go to self's device.
// See Note [Writes as clear and add].
#include <vector>

#include "NativeFunctions.h"
#include "core/wrap_dim.h"
#include "tensorgen/ops.h"

namespace tg::native {

// Note [Writes as clear and add]
// A write of values v into positions P of self is masked_fill(P, 0) followed by an add of v
// into P (index_add / scatter_add), which have kernels and derivatives on every backend: the
// gradient reaches self outside P and v through the add. For this to equal a write, each
// position must be added once: when an index repeats a position, only its last write is kept
// (the others are dropped from v), a deterministic choice where LibTorch leaves it unspecified.

namespace {

struct HostIndex {
  std::vector<int64_t> values;  // wrapped to [0, size)
};

// index as int64 values on the host, each checked against [-size, size) (negative ones
// wrapped) or [0, size).
HostIndex read_index(const char* op, const Tensor& index, int64_t size, bool allow_negative) {
  TG_CHECK_TYPE(index.scalar_type() == kLong, "[", op, "] Expected a long tensor for index, but got ",
                index.scalar_type());
  const Tensor host = index.to(TensorOptions().device(Device(DeviceType::CPU))).contiguous();
  const int64_t* data = host.data_ptr<int64_t>();
  HostIndex result;
  for (int64_t i = 0; i < host.numel(); ++i) {
    int64_t v = data[i];
    const bool ok = allow_negative ? (v >= -size && v < size) : (v >= 0 && v < size);
    TG_CHECK_INDEX(ok, "[", op, "] index ", v, " is out of bounds for dimension with size ", size);
    if (v < 0) v += size;
    result.values.push_back(v);
  }
  return result;
}

Tensor bool_tensor(IntArrayRef shape, const std::vector<bool>& values, Device device) {
  Tensor t = tg::empty(shape, TensorOptions().dtype(kBool));
  bool* data = t.data_ptr<bool>();
  for (size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  return t.to(TensorOptions().device(device));
}

Tensor long_tensor(const std::vector<int64_t>& values, Device device) {
  Tensor t = tg::empty({static_cast<int64_t>(values.size())}, TensorOptions().dtype(kLong));
  std::copy(values.begin(), values.end(), t.data_ptr<int64_t>());
  return t.to(TensorOptions().device(device));
}

// A bool mask broadcasting against self: true at the given positions along dim.
Tensor dim_mask(const Tensor& self, int64_t dim, const std::vector<int64_t>& positions) {
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  std::vector<bool> marked(static_cast<size_t>(size), false);
  for (int64_t p : positions) marked[static_cast<size_t>(p)] = true;
  std::vector<int64_t> shape(static_cast<size_t>(self.dim()), 1);
  if (self.dim() > 0) shape[static_cast<size_t>(dim)] = size;
  return bool_tensor(shape, marked, self.device());
}

void check_index_dims(const char* op, const Tensor& index) {
  TG_CHECK_INDEX(index.dim() <= 1, "[", op, "] Index is supposed to be a vector, got ", index.dim(), " dims");
}

struct CopyPlan {
  Tensor mask;       // the positions written along dim
  Tensor positions;  // where each kept row of source goes
  Tensor rows;       // the kept rows of source (the last write of each position)
};

CopyPlan plan_index_copy(const char* op, const Tensor& self, int64_t& dim, const Tensor& index, const Tensor& source) {
  dim = maybe_wrap_dim(dim, self.dim(), op);
  check_index_dims(op, index);
  TG_CHECK_TYPE(source.scalar_type() == self.scalar_type(), "[", op,
                "] self and source expected to have the same dtype, but got (self) ", self.scalar_type(),
                " and (source) ", source.scalar_type());
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  const int64_t source_rows = source.dim() == 0 ? 1 : source.size(dim);
  TG_CHECK_INDEX(index.numel() == source_rows, "[", op, "] Number of indices (", index.numel(),
                 ") should be equal to source.size(dim) (", source_rows, ")");
  const HostIndex host = read_index(op, index, size, /*allow_negative=*/false);
  std::vector<int64_t> last(static_cast<size_t>(size), -1);  // the last row writing each position
  for (size_t i = 0; i < host.values.size(); ++i) last[static_cast<size_t>(host.values[i])] = static_cast<int64_t>(i);
  std::vector<int64_t> kept_rows, kept_positions;
  for (size_t i = 0; i < host.values.size(); ++i) {
    if (last[static_cast<size_t>(host.values[i])] == static_cast<int64_t>(i)) {
      kept_rows.push_back(static_cast<int64_t>(i));
      kept_positions.push_back(host.values[i]);
    }
  }
  CopyPlan plan;
  plan.mask = dim_mask(self, dim, kept_positions);
  plan.positions = long_tensor(kept_positions, self.device());
  const Tensor source_nd = source.dim() == 0 ? source.reshape({1}) : source;
  plan.rows = source_nd.index_select(self.dim() == 0 ? 0 : dim, long_tensor(kept_rows, self.device()));
  if (self.dim() == 0) plan.rows = plan.rows.reshape({-1});
  return plan;
}

struct ScatterPlan {
  Tensor target_mask;  // self's shape: the positions written
  Tensor dropped;      // index's shape: writes overridden by a later one
};

ScatterPlan plan_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index) {
  TG_CHECK_VALUE(index.dim() == self.dim() || (index.dim() <= 1 && self.dim() <= 1), "[", op,
                 "] Index tensor must have the same number of dimensions as self tensor, got ", index.dim(),
                 " and ", self.dim());
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  dim = maybe_wrap_dim(dim, nd, op);
  std::vector<int64_t> self_sizes(static_cast<size_t>(nd), 1), index_sizes(static_cast<size_t>(nd), 1);
  for (int64_t d = 0; d < self.dim(); ++d) self_sizes[static_cast<size_t>(d)] = self.size(d);
  for (int64_t d = 0; d < index.dim(); ++d) index_sizes[static_cast<size_t>(d)] = index.size(d);
  for (int64_t d = 0; d < nd; ++d) {
    const auto i = static_cast<size_t>(d);
    TG_CHECK_INDEX(d == dim || index.numel() == 0 || index_sizes[i] <= self_sizes[i], "[", op,
                   "] Expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
                   " apart from dimension ", dim);
  }
  const HostIndex host = read_index(op, index, self_sizes[static_cast<size_t>(dim)], /*allow_negative=*/false);
  std::vector<int64_t> self_strides(static_cast<size_t>(nd), 1);
  for (int64_t d = nd - 2; d >= 0; --d) {
    self_strides[static_cast<size_t>(d)] = self_strides[static_cast<size_t>(d + 1)] * self_sizes[static_cast<size_t>(d + 1)];
  }
  // The self position each index element writes, row-major over index.
  std::vector<int64_t> targets(host.values.size());
  std::vector<int64_t> at(static_cast<size_t>(nd), 0);
  for (size_t p = 0; p < host.values.size(); ++p) {
    int64_t linear = 0;
    for (int64_t d = 0; d < nd; ++d) {
      const auto i = static_cast<size_t>(d);
      linear += (d == dim ? host.values[p] : at[i]) * self_strides[i];
    }
    targets[p] = linear;
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++at[static_cast<size_t>(d)] < index_sizes[static_cast<size_t>(d)]) break;
      at[static_cast<size_t>(d)] = 0;
    }
  }
  const int64_t self_numel = self.numel();
  std::vector<int64_t> last(static_cast<size_t>(self_numel), -1);
  for (size_t p = 0; p < targets.size(); ++p) last[static_cast<size_t>(targets[p])] = static_cast<int64_t>(p);
  std::vector<bool> written(static_cast<size_t>(self_numel), false), dropped(targets.size(), false);
  for (size_t p = 0; p < targets.size(); ++p) {
    written[static_cast<size_t>(targets[p])] = true;
    dropped[p] = last[static_cast<size_t>(targets[p])] != static_cast<int64_t>(p);
  }
  return {bool_tensor(self.sizes(), written, self.device()), bool_tensor(index.sizes(), dropped, self.device())};
}

// src's leading block of index's shape, with the overridden writes zeroed.
Tensor scatter_contribution(const char* op, const Tensor& self, const Tensor& index, const Tensor& src,
                            const ScatterPlan& plan) {
  TG_CHECK_TYPE(src.scalar_type() == self.scalar_type(), "[", op, "] Expected self.dtype to be equal to src.dtype, ",
                "got ", self.scalar_type(), " and ", src.scalar_type());
  TG_CHECK_VALUE(src.dim() == index.dim(), "[", op, "] Index tensor must have the same number of dimensions as ",
                 "src tensor, got ", index.dim(), " and ", src.dim());
  Tensor part = src;
  for (int64_t d = 0; d < index.dim(); ++d) {
    TG_CHECK_INDEX(index.size(d) <= src.size(d), "[", op, "] Expected index ", index.sizes(),
                   " to be smaller than src ", src.sizes());
    part = part.narrow(d, 0, index.size(d));
  }
  return part.masked_fill(plan.dropped, 0);
}

}  // namespace

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  dim = maybe_wrap_dim(dim, self.dim(), "index_fill");
  check_index_dims("index_fill", index);
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  return self.masked_fill(dim_mask(self, dim, read_index("index_fill", index, size, true).values), value);
}

Tensor index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  dim = maybe_wrap_dim(dim, self.dim(), "index_fill_");
  check_index_dims("index_fill_", index);
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  return self.masked_fill_(dim_mask(self, dim, read_index("index_fill_", index, size, true).values), value);
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const CopyPlan plan = plan_index_copy("index_copy", self, dim, index, source);
  if (self.dim() == 0) return self.masked_fill(plan.mask, 0) + plan.rows.sum().reshape({});
  return self.masked_fill(plan.mask, 0).index_add(dim, plan.positions, plan.rows);
}

Tensor index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const CopyPlan plan = plan_index_copy("index_copy_", self, dim, index, source);
  if (self.dim() == 0) return self.masked_fill_(plan.mask, 0).add_(plan.rows.sum().reshape({}));
  return self.masked_fill_(plan.mask, 0).index_add_(dim, plan.positions, plan.rows);
}

Tensor scatter_src(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  const ScatterPlan plan = plan_scatter("scatter", self, dim, index);
  return self.masked_fill(plan.target_mask, 0).scatter_add(dim, index, scatter_contribution("scatter", self, index, src, plan));
}

Tensor scatter__src(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  const ScatterPlan plan = plan_scatter("scatter_", self, dim, index);
  return self.masked_fill_(plan.target_mask, 0).scatter_add_(dim, index,
                                                              scatter_contribution("scatter_", self, index, src, plan));
}

Tensor scatter_value(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return self.masked_fill(plan_scatter("scatter", self, dim, index).target_mask, value);
}

Tensor scatter__value(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return self.masked_fill_(plan_scatter("scatter_", self, dim, index).target_mask, value);
}

}  // namespace tg::native
