// Batching rules of the matrix-product family: every case becomes one bmm over the batch
// (an unbatched operand is expanded, which costs no copy), as functorch's
// BatchRulesLinearAlgebra does.
#include "Functions.h"
#include "TensorMethods.h"
#include "core/error.h"
#include "functorch/batch_frame.h"
#include "functorch/batched_tensor.h"
#include "functorch/batching_rules.h"

namespace tg::functorch {
namespace {

// a @ b for logical matrices, batched at the frame's level: [B, n, m].
Tensor batched_mm(const BatchFrame& f, const Tensor& a, const Tensor& b) {
  std::optional<Tensor> pa = physical_at(a, f.level), pb = physical_at(b, f.level);
  if (pa && !pb) {
    // [B, n, k] @ [k, m]: one mm over the stacked rows.
    const int64_t n = pa->size(1), k = pa->size(2);
    return pa->reshape({f.batch_size * n, k}).mm(b).reshape({f.batch_size, n, b.size(1)});
  }
  if (pb && !pa) {
    // [n, k] @ [B, k, m]: one mm with the batch stacked as rows, transposed: a @ b_i is
    // (b_i^T a^T)^T. a stays unexpanded, which matters in backward passes, where `a` is a
    // weight and the batch a basis; for m == 1 (matrix-vector products, as in jacrev) the
    // stacked rows are a view of pb and the result needs no copy either.
    const int64_t k = pb->size(1), m = pb->size(2), n = a.size(0);
    Tensor rows = pb->transpose(1, 2).reshape({f.batch_size * m, k});
    return rows.mm(a.t()).reshape({f.batch_size, m, n}).transpose(1, 2);
  }
  return tg::bmm(batched_front(a, f.level, f.batch_size), batched_front(b, f.level, f.batch_size));
}

// a @ b for logical batches of matrices [b, n, k]: flattened to one bmm.
Tensor batched_bmm(const BatchFrame& f, const Tensor& a, const Tensor& b) {
  Tensor pa = batched_front(a, f.level, f.batch_size), pb = batched_front(b, f.level, f.batch_size);
  const int64_t B = f.batch_size, batch = pa.size(1);
  Tensor out = tg::bmm(pa.reshape({B * batch, pa.size(2), pa.size(3)}), pb.reshape({B * batch, pb.size(2), pb.size(3)}));
  return out.reshape({B, batch, out.size(1), out.size(2)});
}

void check_matrix(const BatchFrame& f, const Tensor& t, int64_t rank) {
  TG_CHECK(logical_rank(t) == rank, "[", f.name(), "] expected a ", rank, "-D tensor, got ", logical_rank(t),
           "-D (inside vmap)");
}

}  // namespace

void batch_rule_mm(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  const Tensor &a = f.args[0].toTensor(), &b = f.args[1].toTensor();
  check_matrix(f, a, 2);
  check_matrix(f, b, 2);
  stack->push_back(make_batched(batched_mm(f, a, b), 0, f.level));
}

void batch_rule_bmm(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  const Tensor &a = f.args[0].toTensor(), &b = f.args[1].toTensor();
  check_matrix(f, a, 3);
  check_matrix(f, b, 3);
  stack->push_back(make_batched(batched_bmm(f, a, b), 0, f.level));
}

void batch_rule_addmm(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  if (f.is_inplace()) f.check_inplace_self();
  const Tensor &self = f.args[0].toTensor(), &a = f.args[1].toTensor(), &b = f.args[2].toTensor();
  check_matrix(f, a, 2);
  check_matrix(f, b, 2);
  const Scalar beta = f.args[3].toScalar(), alpha = f.args[4].toScalar();
  Tensor product = batched_mm(f, a, b);
  // self broadcasts against the logical [n, m]: give it the batch dim in front.
  Tensor bias = physical_at(self, f.level) ? *physical_at(self, f.level) : self.unsqueeze(0);
  while (bias.dim() < 3) bias = bias.unsqueeze(1);
  Tensor out = tg::add(bias.mul(beta), product, alpha);
  if (f.is_inplace()) {
    bias.copy_(out);  // addmm_: self is batched here, so bias is its physical tensor
    stack->push_back(f.args[0]);
    return;
  }
  stack->push_back(make_batched(out, 0, f.level));
}

}  // namespace tg::functorch
