// The argument rules of the fused optimizer steps (schemas/optim.yaml), shared by the CPU and
// the CUDA kernels so that both raise the same errors: each list holds one tensor per
// parameter (or none, when `may_be_empty`), of the parameter's shape, dtype and device, and
// parameters are floating.
#pragma once

#include <initializer_list>
#include <optional>

#include "core/tensor.h"

namespace tg {

struct ListArgument {
  const char* name;
  TensorList tensors;
  bool may_be_empty;
};

void check_lists(const char* op, TensorList params, std::initializer_list<ListArgument> lists);

// _fused_sgd_: the lists (momentum buffers only with a momentum); nesterov needs a momentum and
// no dampening.
void check_sgd(const char* op, TensorList params, TensorList grads, TensorList momentum_buffer_list, double momentum,
               double dampening, bool nesterov);

// _fused_adam(w)_: the lists (max_exp_avg_sqs only with amsgrad), and one 1-element step count
// per parameter.
void check_adam(const char* op, TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                TensorList max_exp_avg_sqs, TensorList state_steps, bool amsgrad);

// Whether found_inf (when given) is non-zero, so that the step is skipped.
bool step_skipped(const std::optional<Tensor>& found_inf);

// 1 / grad_scale, or 1 without one.
double inverse_scale(const char* op, const std::optional<Tensor>& grad_scale);

// The hyper-parameters of an Adam or AdamW step.
struct AdamOptions {
  double lr, beta1, beta2, weight_decay, eps;
  bool amsgrad, maximize, decoupled_weight_decay;
};

}  // namespace tg
