// The conformance checks. Each takes the OpSpec of one overload and reports every problem
// through doctest, naming the operator, the sample and the input. The generated tests call
// one check per case: "add.Tensor: gradcheck" runs check_gradcheck(spec_of_add_Tensor).
#pragma once

#include "op_spec.h"

namespace tg::conformance {

// The schema is registered, round-trips through the runtime parser, and every dispatch key
// the entry declares has a kernel.
void check_registration(const OpSpec& spec);
// The boxed call by name gives exactly what the typed call gives.
void check_boxed(const OpSpec& spec);
// Function, method, in-place and out variants agree; in-place keeps the storage.
void check_variants(const OpSpec& spec);
// out= resizes an empty out, keeps a correctly sized non-contiguous out's strides, and
// rejects an out of a dtype the result cannot be cast to.
void check_out(const OpSpec& spec);
// Transposed, sliced-with-step and expanded inputs give what their contiguous copies give.
void check_noncontiguous(const OpSpec& spec);
// Every dtype runs or raises a tg::Error naming it; the dtypes the kernels' dispatch claims
// all run.
void check_dtypes(const OpSpec& spec);
// The scalar reference agrees elementwise, computed in double, in every dtype that runs.
void check_reference(const OpSpec& spec);
// Gradients against central finite differences in float64, first and second order.
void check_gradcheck(const OpSpec& spec);
void check_gradgradcheck(const OpSpec& spec);
// Transforms (checks_transforms.cpp), for overloads with a forward-mode rule: the jvp against
// central finite differences; <v, J u> == <J^T v, u> between the forward and backward
// formulas; vmap over a batch of 3 equals a loop of 3 calls (along dim 0 and dim 1).
void check_forward_ad(const OpSpec& spec);
void check_fwd_bwd_consistency(const OpSpec& spec);
void check_vmap(const OpSpec& spec);
// Wrong shapes, out-of-range dims and negative sizes raise tg::Error.
void check_errors(const OpSpec& spec);
// CPU and CUDA agree; mixing devices raises tg::Error. Runs only where a GPU is present.
void check_cpu_cuda(const OpSpec& spec);

}  // namespace tg::conformance
