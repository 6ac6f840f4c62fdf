// BatchFrame: one boxed call reaching a batching rule, taken apart. Invariant: `level` is
// the innermost live vmap level among the arguments' BatchedTensors and `batch_size` its
// batch size; arguments batched at other (outer) levels are left as they are, so that the
// call made with the physical tensors reaches those levels' rules next.
#pragma once

#include <cstdint>
#include <vector>

#include "dispatch/dispatcher.h"
#include "dispatch/function_schema.h"

namespace tg::functorch {

struct BatchFrame {
  const OperatorHandle& op;
  const FunctionSchema& schema;
  std::vector<IValue> args;  // the call's arguments, popped from the stack
  int64_t level = 0;
  int64_t batch_size = 0;

  // Pops the op's arguments from `stack`; finds the level; raises when a BatchedTensor
  // escaped its vmap.
  BatchFrame(const OperatorHandle& op, Stack* stack);

  std::string name() const { return op.operator_name().str(); }
  bool is_inplace() const;
  // The op's outputs for `args` (a fresh dispatch: outer levels' rules apply next).
  std::vector<IValue> call(std::vector<IValue> call_args) const;
  // Pushes outputs: tensors wrapped as batched along `bdim` at this level.
  void push_batched(Stack* stack, std::vector<IValue> outputs, int64_t bdim = 0) const;
  // For in-place ops: raises unless self (argument 0) is batched at this level.
  void check_inplace_self() const;
};

// The logical rank of t (BatchedTensors have their batch dims removed).
inline int64_t logical_rank(const Tensor& t) { return t.dim(); }
// t with its batch dim at `level` in front and expanded to `batch_size` when t is not batched there.
Tensor batched_front(const Tensor& t, int64_t level, int64_t batch_size);

}  // namespace tg::functorch
