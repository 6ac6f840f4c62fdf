// Batching rules: how an operator runs on BatchedTensors, one boxed function per family.
// Each rule unwraps the arguments batched at the innermost vmap level among them, calls the
// operator once on the physical tensors (batch dim in front, dims shifted by one), and wraps
// the outputs. Which operator uses which rule is generated from the schemas
// (codegen/batching.py -> RegisterBatched.cpp); an operator without a rule runs the counted
// loop fallback. See docs/transforms.md, "Batching rules".
#pragma once

#include <atomic>
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

// nn_rules.cpp. Ops over a leading N dim (pooling, im2col, col2im and their backwards): the
// batch folds into N (declared with declare_fold: the rank of an input that has N).
void batch_rule_fold(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
// convolution and convolution_backward: a per-sample weight through B * groups groups.
void batch_rule_conv(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
void batch_rule_conv_backward(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
// embedding and embedding_dense_backward: per-sample tables stacked, indices offset.
void batch_rule_embedding(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
void batch_rule_embedding_backward(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
// native_layer_norm: a per-sample weight or bias applied after normalizing.
void batch_rule_layer_norm(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
// nll_loss_forward: unreduced over the batch, reduced per sample.
void batch_rule_nll_loss(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
// index_rules.cpp. A batched index as a gather / scatter_add along the logical dim.
void batch_rule_index_select(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
void batch_rule_index_add(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
// index.Tensor, index_put(_): a None (unbatched indices) or an arange (batched ones) indexes the batch dim.
void batch_rule_index(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
void batch_rule_index_put(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
// masked_fill (Scalar and Tensor value, in place too): the mask broadcast per sample.
void batch_rule_masked_fill(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
// squeeze(self) without dims: the logical size-1 dims.
void batch_rule_squeeze_all(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
// copy_: src broadcast into the physical self.
void batch_rule_copy(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);

// The fallback for every operator without a rule: a loop over the batch, one call per
// sample, outputs stacked. Counted per operator.
void batch_fallback(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);

// reduce_all's targets: `op` (e.g. "sum") is computed as `via` ("sum.dim_IntList") over
// the logical dims. Called by the generated registration.
void declare_reduce_all(std::string_view op, std::string_view via);
// fold's ops: `rank` is the rank of an input with its N dim (4 for max_pool2d).
void declare_fold(std::string_view op, int64_t rank);

// Every rule is registered through batch_entry: before the rule, a call that reaches
// FuncTorchBatched because of a module tensor under functional_call is given the tensors that
// stand for it (See Note [functional_call by substitution] in functional_call.cpp).
extern std::atomic<int> active_substitutions;
bool handled_by_substitution(const OperatorHandle& op, DispatchKeySet ks, Stack* stack);
template <void (*Rule)(const OperatorHandle&, DispatchKeySet, Stack*)>
void batch_entry(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  if (active_substitutions.load(std::memory_order_relaxed) > 0 && handled_by_substitution(op, ks, stack)) return;
  Rule(op, ks, stack);
}

// How often each operator fell back to the loop since the last reset (thread-safe).
std::map<std::string, int64_t> fallback_counts();
int64_t total_fallbacks();
void reset_fallback_counts();

}  // namespace tg::functorch
