#include "functorch/batched_tensor.h"

#include <vector>

#include "Functions.h"
#include "TensorMethods.h"
#include "core/error.h"

namespace tg::functorch {
namespace {

std::vector<int64_t> without(IntArrayRef values, int64_t index) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < static_cast<int64_t>(values.size()); ++i) {
    if (i != index) out.push_back(values[static_cast<size_t>(i)]);
  }
  return out;
}

}  // namespace

BatchedTensorImpl::BatchedTensorImpl(Tensor value, int64_t bdim, int64_t level)
    : TensorImpl(value.storage(), value.scalar_type(), without(value.sizes(), bdim)),
      value_(std::move(value)),
      bdim_(bdim),
      level_(level) {
  set_sizes_and_strides(without(value_.sizes(), bdim_), without(value_.strides(), bdim_));
  set_storage_offset(value_.storage_offset());
  add_key(DispatchKey::FuncTorchBatched);
}

Tensor make_batched(const Tensor& value, int64_t bdim, int64_t level) {
  TG_INTERNAL_ASSERT(bdim >= 0 && bdim < value.dim(), "batch dim out of range");
  return Tensor(make_intrusive<BatchedTensorImpl>(value, bdim, level));
}

const BatchedTensorImpl* maybe_batched(const Tensor& t) {
  if (!t.defined() || !t.unsafeGetTensorImpl()->key_set().has(DispatchKey::FuncTorchBatched)) return nullptr;
  // A module's tensor under functional_call carries the key too (See Note [functional_call by
  // substitution]) without being a BatchedTensor.
  return dynamic_cast<const BatchedTensorImpl*>(t.unsafeGetTensorImpl());
}

Tensor move_dim(const Tensor& t, int64_t from, int64_t to) {
  if (from == to) return t;
  std::vector<int64_t> order;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d != from) order.push_back(d);
  }
  order.insert(order.begin() + to, from);
  return t.permute(order);
}

std::optional<Tensor> physical_at(const Tensor& t, int64_t level) {
  const BatchedTensorImpl* b = maybe_batched(t);
  if (b == nullptr || b->level() != level) return std::nullopt;
  return move_dim(b->value(), b->bdim(), 0);
}

}  // namespace tg::functorch
