// BatchedTensor: what a vmapped function sees in place of a batch of tensors. Invariant:
// logical sizes == value().sizes() without dim bdim(), and the batch has
// value().size(bdim()) entries; level() is the vmap that made it (interpreter_stack.h).
// It carries the FuncTorchBatched key, so every operation on it reaches a batching rule
// (batching_rules.h), which works on value() and never reads the BatchedTensor's own memory.
#pragma once

#include <cstdint>
#include <optional>

#include "core/tensor.h"
#include "core/tensor_impl.h"

namespace tg::functorch {

class BatchedTensorImpl final : public TensorImpl {
 public:
  BatchedTensorImpl(Tensor value, int64_t bdim, int64_t level);
  const Tensor& value() const noexcept { return value_; }
  int64_t bdim() const noexcept { return bdim_; }
  int64_t level() const noexcept { return level_; }

 private:
  Tensor value_;
  int64_t bdim_;
  int64_t level_;
};

// A BatchedTensor over `value`, batched along `bdim` at vmap `level`.
Tensor make_batched(const Tensor& value, int64_t bdim, int64_t level);
// t's BatchedTensorImpl, or nullptr when t is not batched.
const BatchedTensorImpl* maybe_batched(const Tensor& t);
// When t is batched at `level`: its value with the batch dim moved to the front.
std::optional<Tensor> physical_at(const Tensor& t, int64_t level);
// Moves dim `from` of t to position `to` (a permute: a view).
Tensor move_dim(const Tensor& t, int64_t from, int64_t to);

}  // namespace tg::functorch
