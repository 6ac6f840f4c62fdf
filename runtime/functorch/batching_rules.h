// Batching rules: how an operator runs on BatchedTensors, one boxed function per family.
// Each rule unwraps the arguments batched at the innermost vmap level among them, calls the
// operator once on the physical tensors (batch dim in front, dims shifted by one), and wraps
// the outputs. Which operator uses which rule is generated from the schemas
// (codegen/batching.py -> RegisterBatched.cpp); an operator without a rule runs the counted
// loop fallback. See docs/transforms.md, "Batching rules".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "dispatch/dispatcher.h"

namespace tg::functorch {

// Elementwise with broadcasting: batched operands get their batch dim in front and are
// padded to the largest logical rank, so that broadcasting aligns logical dims.
void batch_rule_pointwise(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
// One operand (the first Tensor) whose leading dims are free: `dim`, `dim0`, `dim1` shift
// by one, `dim` lists (empty: all) shift, `dims` (a permutation) gains 0 in front, `size`,
// `shape` and `input_sizes` gain the batch size in front; other tensors of the same logical
// rank are batched alongside (expanded when unbatched), others pass through.
void batch_rule_dims(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
// A full reduction (sum, mean, max): runs the overload declared with
// declare_reduce_all over the logical dims.
void batch_rule_reduce_all(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
// Tensor[] + dim (cat, stack): every element batched (expanded when unbatched), dim + 1.
void batch_rule_cat(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
// A loss with `int reduction`: computed unreduced, then reduced per sample.
void batch_rule_loss(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
// mm, bmm, addmm (matmul_rules.cpp): as bmm over the batch.
void batch_rule_mm(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
void batch_rule_bmm(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
void batch_rule_addmm(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);

// The fallback for every operator without a rule: a loop over the batch, one call per
// sample, outputs stacked. Counted per operator.
void batch_fallback(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);

// reduce_all's targets: `op` (e.g. "sum") is computed as `via` ("sum.dim_IntList") over
// the logical dims. Called by the generated registration.
void declare_reduce_all(std::string_view op, std::string_view via);

// How often each operator fell back to the loop since the last reset (thread-safe).
std::map<std::string, int64_t> fallback_counts();
int64_t total_fallbacks();
void reset_fallback_counts();

}  // namespace tg::functorch
