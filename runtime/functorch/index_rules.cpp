// Batching rules of the indexing family: a batched index becomes a gather/scatter along the
// logical dim (each sample reads or writes its own slice), advanced indexing gets a None (or,
// with batched indices, an arange) for the batch dim, masked_fill broadcasts its mask as a
// pointwise op does (a per-sample fill value becomes a where), squeeze without dims squeezes the
// logical size-1 dims, and in-place copies write into the physical tensor.
#include <numeric>

#include "Functions.h"
#include "TensorMethods.h"
#include "core/error.h"
#include "functorch/batch_frame.h"
#include "functorch/batched_tensor.h"
#include "functorch/batching_rules.h"

namespace tg::functorch {
namespace {

// A batched operand [B, s...] paded with size-1 dims after the batch to logical rank `rank`,
// so that it broadcasts against another [B, ...] operand as the logical tensors would.
Tensor padded(const Tensor& physical, int64_t rank) {
  Tensor p = physical;
  while (p.dim() - 1 < rank) p = p.unsqueeze(1);
  return p;
}

int64_t wrap_dim(const BatchFrame& f, int64_t dim, int64_t rank) {
  const int64_t r = std::max<int64_t>(rank, 1);
  const int64_t wrapped = dim < 0 ? dim + r : dim;
  TG_CHECK(wrapped >= 0 && wrapped < r, "[", f.name(), "] dim ", dim, " out of range for a tensor of ", rank,
           " dims (inside vmap)");
  return wrapped;
}

// The batched index [B, n] (or [B] for a 0-dim one) laid along physical dim `dim` of a tensor of
// `like_sizes` ([B, ...]): [B, 1.., n, 1..] expanded to like_sizes with `dim` of size n.
Tensor index_along(const Tensor& index, int64_t dim, IntArrayRef like_sizes) {
  const int64_t batch = like_sizes[0];
  Tensor flat = index.reshape({batch, -1});
  std::vector<int64_t> shape(like_sizes.size(), 1);
  shape[0] = batch;
  shape[static_cast<size_t>(dim)] = flat.size(1);
  std::vector<int64_t> target = like_sizes.vec();
  target[static_cast<size_t>(dim)] = flat.size(1);
  return flat.reshape(shape).expand(target);
}


bool is_mask(const Tensor& t) { return t.scalar_type() == kBool || t.scalar_type() == kByte; }

// Where advanced indexing puts B (advanced_index.h) for one sample's indices.
struct IndexLayout {
  int64_t nb = 0;         // dims of B
  int64_t first = 0;      // the first indexed dim
  int64_t indexed = 0;    // dims of self the index tensors replace by B
  bool adjacent = true;   // the indexed dims are consecutive: B lands at `first`, else in front
  bool any_mask = false;
};

IndexLayout layout_of(const std::vector<std::optional<Tensor>>& indices) {
  IndexLayout l;
  int64_t dim = 0, next = -1;
  for (const auto& index : indices) {
    if (!index || !index->defined()) {
      ++dim;
      continue;
    }
    const bool mask = is_mask(*index);
    const int64_t span = mask ? std::max<int64_t>(index->dim(), 1) : 1;
    l.nb = std::max<int64_t>(l.nb, mask ? 1 : index->dim());
    l.any_mask = l.any_mask || mask;
    if (next < 0) l.first = dim;
    else if (dim != next) l.adjacent = false;
    l.indexed += span;
    dim += span;
    next = dim;
  }
  return l;
}

// The indices of one call on the physical self [N, ...], and the permutation that turns the
// physical result into [N, R...] (R: one sample's result). Unbatched indices get a None for the
// batch dim; batched ones an arange over it, each sample reading its own slice.
struct BatchedIndices {
  std::vector<std::optional<Tensor>> indices;
  std::vector<int64_t> order;
};

BatchedIndices batched_indices(const BatchFrame& f, const std::vector<std::optional<Tensor>>& indices,
                               const IndexLayout& l, int64_t rank, Device device) {
  BatchedIndices b;
  b.order.resize(static_cast<size_t>(rank + 1));
  std::iota(b.order.begin(), b.order.end(), 0);
  bool any_batched = false;
  for (const auto& index : indices) any_batched = any_batched || (index && physical_at(*index, f.level));
  if (!any_batched) {
    b.indices.push_back(std::nullopt);
    b.indices.insert(b.indices.end(), indices.begin(), indices.end());
    if (!l.adjacent) {  // physically [B, N, others]: the batch dim follows B
      b.order.erase(b.order.begin() + l.nb);
      b.order.insert(b.order.begin(), l.nb);
    }
    return b;
  }
  TG_CHECK(!l.any_mask, "[vmap] ", f.name(), ": a bool mask together with index tensors that differ per sample is "
           "not supported (each sample's result would have a shape of its own)");
  std::vector<int64_t> arange_shape(static_cast<size_t>(l.nb + 1), 1);
  arange_shape[0] = f.batch_size;
  b.indices.push_back(tg::arange(f.batch_size, TensorOptions().dtype(kLong).device(device)).view(arange_shape));
  for (const auto& index : indices) {
    if (!index || !index->defined()) {
      b.indices.push_back(std::nullopt);
      continue;
    }
    // [N, 1.., sizes]: the sample's index right-aligned in B, as broadcasting aligns it.
    b.indices.push_back(padded(physical_at(*index, f.level).value_or(index->unsqueeze(0)), l.nb));
  }
  if (l.adjacent && l.first > 0) {
    // Physically [N, B, others]; one sample's R has B after its first `first` other dims.
    b.order = {0};
    for (int64_t d = 0; d < l.first; ++d) b.order.push_back(1 + l.nb + d);
    for (int64_t d = 0; d < l.nb; ++d) b.order.push_back(1 + d);
    for (int64_t d = 1 + l.nb + l.first; d <= rank; ++d) b.order.push_back(d);
  }
  return b;
}

std::vector<int64_t> inverse(const std::vector<int64_t>& order) {
  std::vector<int64_t> result(order.size());
  for (size_t i = 0; i < order.size(); ++i) result[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
  return result;
}

std::vector<std::optional<Tensor>> optional_tensors(const IValue& list) {
  return detail::IValueConvert<std::vector<std::optional<Tensor>>>::to(list);
}
}  // namespace

void batch_rule_index_select(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  // index_select(self, dim, index)
  const Tensor& self = f.args[0].toTensor();
  const int64_t d = wrap_dim(f, f.args[1].toInt(), logical_rank(self)) + 1;  // a 0-dim self gets a dim of 1
  Tensor x = batched_front(self, f.level, f.batch_size);
  if (logical_rank(self) == 0) x = x.unsqueeze(1);
  std::optional<Tensor> index = physical_at(f.args[2].toTensor(), f.level);
  Tensor out;
  if (!index) {
    out = x.index_select(d, f.args[2].toTensor());
  } else {
    // Each sample picks from its own slice: a gather with the index laid along dim d.
    std::vector<int64_t> sizes = x.sizes().vec();
    out = x.gather(d, index_along(*index, d, sizes));
  }
  if (logical_rank(self) == 0) out = out.squeeze(1);
  f.push_batched(stack, {out});
}

void batch_rule_index_add(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  // index_add(self, dim, index, source, alpha), and index_add_
  if (f.is_inplace()) f.check_inplace_self();
  const Tensor& self = f.args[0].toTensor();
  const int64_t rank = logical_rank(self);
  const int64_t d = wrap_dim(f, f.args[1].toInt(), rank) + 1;
  Tensor x = batched_front(self, f.level, f.batch_size);
  Tensor source = batched_front(f.args[3].toTensor(), f.level, f.batch_size);
  const Scalar alpha = f.args[4].toScalar();
  if (rank == 0) {
    x = x.unsqueeze(1);
    source = padded(source, 1);
  }
  std::optional<Tensor> index = physical_at(f.args[2].toTensor(), f.level);
  Tensor out;
  if (!index) {
    out = f.is_inplace() ? x.index_add_(d, f.args[2].toTensor(), source, alpha)
                         : x.index_add(d, f.args[2].toTensor(), source, alpha);
  } else {
    // Each sample adds into its own slice: a scatter_add with the index laid along the dim.
    std::vector<int64_t> sizes = source.sizes().vec();
    Tensor where = index_along(*index, d, sizes);
    Tensor scaled = source.mul(alpha);
    out = f.is_inplace() ? x.scatter_add_(d, where, scaled) : x.scatter_add(d, where, scaled);
  }
  if (f.is_inplace()) {
    stack->push_back(f.args[0]);
    return;
  }
  if (rank == 0) out = out.squeeze(1);
  f.push_batched(stack, {out});
}

void batch_rule_index(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  // index.Tensor(self, indices)
  const Tensor& self = f.args[0].toTensor();
  const std::vector<std::optional<Tensor>> indices = optional_tensors(f.args[1]);
  const IndexLayout l = layout_of(indices);
  const Tensor x = batched_front(self, f.level, f.batch_size);
  const BatchedIndices b = batched_indices(f, indices, l, l.nb + logical_rank(self) - l.indexed, x.device());
  f.push_batched(stack, {tg::index(x, b.indices).permute(b.order)});
}

void batch_rule_index_put(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  // index_put(self, indices, values, accumulate), and index_put_
  if (f.is_inplace()) f.check_inplace_self();
  const Tensor& self = f.args[0].toTensor();
  const std::vector<std::optional<Tensor>> indices = optional_tensors(f.args[1]);
  const bool accumulate = f.args[3].toBool();
  const IndexLayout l = layout_of(indices);
  const int64_t rank = l.nb + logical_rank(self) - l.indexed;
  Tensor x = batched_front(self, f.level, f.batch_size);
  if (!physical_at(self, f.level)) x = x.contiguous();  // expanded: each sample writes its own copy
  const BatchedIndices b = batched_indices(f, indices, l, rank, x.device());
  // values broadcast to one sample's R: [N, 1.., values], laid out as the physical result.
  Tensor values = batched_front(f.args[2].toTensor(), f.level, f.batch_size);
  TG_CHECK(values.dim() <= rank + 1, "[", f.name(), "] shape mismatch: value tensor of shape ",
           f.args[2].toTensor().sizes(), " cannot be broadcast to an indexing result of ", rank, " dims");
  values = padded(values, rank).permute(inverse(b.order));
  if (f.is_inplace()) {
    tg::index_put_(x, b.indices, values, accumulate);
    stack->push_back(f.args[0]);
    return;
  }
  f.push_batched(stack, {tg::index_put(x, b.indices, values, accumulate)});
}

void batch_rule_masked_fill(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  // masked_fill(self, mask, value: Scalar or Tensor), and masked_fill_
  if (f.is_inplace()) f.check_inplace_self();
  const int64_t rank = logical_rank(f.args[0].toTensor());
  std::vector<IValue> args = f.args;
  Tensor x = batched_front(f.args[0].toTensor(), f.level, f.batch_size);
  args[0] = x;
  if (std::optional<Tensor> mask = physical_at(f.args[1].toTensor(), f.level)) args[1] = padded(*mask, rank);
  std::optional<Tensor> value = f.args[2].isTensor() ? physical_at(f.args[2].toTensor(), f.level) : std::nullopt;
  if (!value) {
    std::vector<IValue> out = f.call(std::move(args));
    if (f.is_inplace()) {
      stack->push_back(f.args[0]);
      return;
    }
    return f.push_batched(stack, std::move(out));
  }
  // A fill value per sample: where(mask, value, self) with the value broadcast over its sample.
  std::vector<int64_t> shape(static_cast<size_t>(rank + 1), 1);
  shape[0] = f.batch_size;
  Tensor filled = tg::where(args[1].toTensor().to(kBool), value->reshape(shape), x);
  if (f.is_inplace()) {
    x.copy_(filled);
    stack->push_back(f.args[0]);
    return;
  }
  f.push_batched(stack, {filled});
}

void batch_rule_squeeze_all(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  // squeeze(self): every logical dim of size 1, never the batch dim.
  Tensor x = batched_front(f.args[0].toTensor(), f.level, f.batch_size);
  for (int64_t d = x.dim() - 1; d >= 1; --d) {
    if (x.size(d) == 1) x = x.squeeze(d);
  }
  f.push_batched(stack, {x});
}

void batch_rule_copy(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  // copy_(self, src, non_blocking): src broadcasts into self per sample.
  f.check_inplace_self();
  std::vector<IValue> args = f.args;
  args[0] = *physical_at(f.args[0].toTensor(), f.level);
  if (std::optional<Tensor> src = physical_at(f.args[1].toTensor(), f.level)) {
    args[1] = padded(*src, logical_rank(f.args[0].toTensor()));
  }
  f.call(std::move(args));
  stack->push_back(f.args[0]);
}

}  // namespace tg::functorch
