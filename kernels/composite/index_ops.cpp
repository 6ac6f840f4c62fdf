// index_fill, index_copy and scatter (schemas/index_ops.yaml) over masked_fill, index_add and
// scatter_add. The indices decide which positions are written: on the CPU they are read on the
// host (checked there, with LibTorch's messages), on another device the plan is built there
// (Note [Write plans on the device], index_write_plan.cpp). See Note [Writes as clear and add].
#include <vector>

#include "NativeFunctions.h"
#include "composite/index_write_plan.h"
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

// Every tensor on self's device, as LibTorch's device check of these operators requires; a 0-dim
// CPU index or source joins a self on another device as a scalar (check_same_device's rule) and
// is returned moved there.
Tensor on_device_of_self(const char* op, const Tensor& self, const char* name, const Tensor& t) {
  if (t.device() == self.device()) return t;
  TG_CHECK(t.is_cpu() && t.dim() == 0, "[", op, "] expected all tensors to be on the same device, but found ",
           "at least two devices, ", self.device(), " (self) and ", t.device(), " (", name, ")");
  return t.to(TensorOptions().device(self.device()));
}

// The shape that broadcasts a vector along dim of t: t.size(dim) at dim, 1 elsewhere ([] for a
// 0-dim t).
std::vector<int64_t> along_dim(const Tensor& t, int64_t dim) {
  std::vector<int64_t> shape(static_cast<size_t>(t.dim()), 1);
  if (t.dim() > 0) shape[static_cast<size_t>(dim)] = t.size(dim);
  return shape;
}

void check_long_index(const char* op, const Tensor& index) {
  TG_CHECK_TYPE(index.scalar_type() == kLong, "[", op, "] Expected a long tensor for index, but got ",
                index.scalar_type());
}

// index_fill's positions along dim, as a bool mask broadcasting against self.
Tensor fill_mask(const char* op, const Tensor& self, int64_t& dim, const Tensor& index_arg) {
  dim = maybe_wrap_dim(dim, self.dim(), op);
  check_index_dims(op, index_arg);
  const Tensor index = on_device_of_self(op, self, "index", index_arg);
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  if (self.is_cpu()) return dim_mask(self, dim, read_index(op, index, size, /*allow_negative=*/true).values);
  check_long_index(op, index);
  return index_write_plan::marked_positions(index_write_plan::wrap_negative(index, size), size).reshape(along_dim(self, dim));
}

struct CopyPlan {
  Tensor mask;       // the positions written along dim
  Tensor positions;  // where each row of `rows` goes
  Tensor rows;       // the rows of source that are added: each position's last write only
};

CopyPlan plan_index_copy(const char* op, const Tensor& self, int64_t& dim, const Tensor& index_arg,
                         const Tensor& source_arg) {
  dim = maybe_wrap_dim(dim, self.dim(), op);
  check_index_dims(op, index_arg);
  const Tensor index = on_device_of_self(op, self, "index", index_arg);
  const Tensor source = on_device_of_self(op, self, "source", source_arg);
  TG_CHECK_TYPE(source.scalar_type() == self.scalar_type(), "[", op,
                "] self and source expected to have the same dtype, but got (self) ", self.scalar_type(),
                " and (source) ", source.scalar_type());
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  const int64_t source_rows = source.dim() == 0 ? 1 : source.size(dim);
  TG_CHECK_INDEX(index.numel() == source_rows, "[", op, "] Number of indices (", index.numel(),
                 ") should be equal to source.size(dim) (", source_rows, ")");
  const Tensor source_nd = source.dim() == 0 ? source.reshape({1}) : source;
  const int64_t source_dim = self.dim() == 0 ? 0 : dim;
  CopyPlan plan;
  if (!self.is_cpu()) {
    check_long_index(op, index);
    plan.positions = index.reshape({-1});
    plan.mask = index_write_plan::marked_positions(plan.positions, size).reshape(along_dim(self, dim));
    const Tensor overridden = index_write_plan::overridden_writes(plan.positions);
    plan.rows = source_nd.masked_fill(overridden.reshape(along_dim(source_nd, source_dim)), 0);
    if (self.dim() == 0) plan.rows = plan.rows.reshape({-1});
    return plan;
  }
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
  plan.mask = dim_mask(self, dim, kept_positions);
  plan.positions = long_tensor(kept_positions, self.device());
  plan.rows = source_nd.index_select(source_dim, long_tensor(kept_rows, self.device()));
  if (self.dim() == 0) plan.rows = plan.rows.reshape({-1});
  return plan;
}

struct ScatterPlan {
  Tensor index;        // on self's device
  Tensor target_mask;  // self's shape: the positions written
  Tensor dropped;      // index's shape: writes overridden by a later one
};

ScatterPlan plan_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index_arg) {
  const Tensor index = on_device_of_self(op, self, "index", index_arg);
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
  if (!self.is_cpu()) {
    check_long_index(op, index);
    const TensorOptions longs = TensorOptions().dtype(kLong).device(self.device());
    const Tensor index_nd = index.reshape(index_sizes);
    // scatter_add checks each index against self's size along dim, on the device.
    const Tensor counts = tg::zeros(self_sizes, longs).scatter_add(dim, index_nd, tg::ones(index_sizes, longs));
    const Tensor targets = index_write_plan::scatter_targets(index_nd, dim, self_sizes);
    return {index, counts.gt(0).reshape(self.sizes()), index_write_plan::overridden_writes(targets).reshape(index.sizes())};
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
  return {index, bool_tensor(self.sizes(), written, self.device()), bool_tensor(index.sizes(), dropped, self.device())};
}

// src's leading block of index's shape, with the overridden writes zeroed.
Tensor scatter_contribution(const char* op, const Tensor& self, const Tensor& src_arg, const ScatterPlan& plan) {
  const Tensor src = on_device_of_self(op, self, "src", src_arg);
  const Tensor& index = plan.index;
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
  return self.masked_fill(fill_mask("index_fill", self, dim, index), value);
}

Tensor index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return self.masked_fill_(fill_mask("index_fill_", self, dim, index), value);
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
  return self.masked_fill(plan.target_mask, 0).scatter_add(dim, plan.index, scatter_contribution("scatter", self, src, plan));
}

Tensor scatter__src(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  const ScatterPlan plan = plan_scatter("scatter_", self, dim, index);
  return self.masked_fill_(plan.target_mask, 0).scatter_add_(dim, plan.index, scatter_contribution("scatter_", self, src, plan));
}

Tensor scatter_value(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return self.masked_fill(plan_scatter("scatter", self, dim, index).target_mask, value);
}

Tensor scatter__value(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return self.masked_fill_(plan_scatter("scatter_", self, dim, index).target_mask, value);
}

}  // namespace tg::native
