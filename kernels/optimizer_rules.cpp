// The argument rules of the fused optimizer steps (optimizer_rules.h).
#include "optimizer_rules.h"

#include "TensorMethods.h"

namespace tg {

void check_lists(const char* op, TensorList params, std::initializer_list<ListArgument> lists) {
  for (size_t i = 0; i < params.size(); ++i) {
    TG_CHECK_TYPE(is_floating_type(params[i].scalar_type()), "[", op, "] expected floating parameters, got ",
                  params[i].scalar_type(), " for parameter ", i);
  }
  for (const ListArgument& list : lists) {
    if (list.may_be_empty && list.tensors.empty()) continue;
    TG_CHECK_VALUE(list.tensors.size() == params.size(), "[", op, "] expected ", list.name, " to hold ",
                   params.size(), " tensors, one per parameter, got ", list.tensors.size());
    for (size_t i = 0; i < params.size(); ++i) {
      const Tensor& t = list.tensors[i];
      TG_CHECK_VALUE(t.sizes() == params[i].sizes(), "[", op, "] expected ", list.name, "[", i, "] of the shape of ",
                     "parameter ", i, " ", params[i].sizes(), ", got ", t.sizes());
      TG_CHECK_TYPE(t.scalar_type() == params[i].scalar_type(), "[", op, "] expected ", list.name, "[", i, "] of ",
                    "dtype ", params[i].scalar_type(), " like its parameter, got ", t.scalar_type());
      TG_CHECK(t.device() == params[i].device(), "[", op, "] expected ", list.name, "[", i, "] on ",
               params[i].device(), " like its parameter, got ", t.device());
    }
  }
}

void check_sgd(const char* op, TensorList params, TensorList grads, TensorList momentum_buffer_list, double momentum,
               double dampening, bool nesterov) {
  check_lists(op, params, {{"grads", grads, false}, {"momentum_buffer_list", momentum_buffer_list, momentum == 0}});
  TG_CHECK_VALUE(!nesterov || (momentum > 0 && dampening == 0), "[", op, "] nesterov momentum requires a momentum ",
                 "and zero dampening, got momentum=", momentum, " and dampening=", dampening);
}

void check_adam(const char* op, TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                TensorList max_exp_avg_sqs, TensorList state_steps, bool amsgrad) {
  check_lists(op, params, {{"grads", grads, false}, {"exp_avgs", exp_avgs, false},
                           {"exp_avg_sqs", exp_avg_sqs, false}, {"max_exp_avg_sqs", max_exp_avg_sqs, !amsgrad}});
  TG_CHECK_VALUE(state_steps.size() == params.size(), "[", op, "] expected state_steps to hold ", params.size(),
                 " tensors, one per parameter, got ", state_steps.size());
  for (size_t i = 0; i < params.size(); ++i) {
    TG_CHECK_VALUE(state_steps[i].numel() == 1, "[", op, "] expected a 1-element state_steps[", i, "], got shape ",
                   state_steps[i].sizes());
  }
}

bool step_skipped(const std::optional<Tensor>& found_inf) {
  return found_inf && found_inf->defined() && found_inf->item<double>() != 0.0;
}

double inverse_scale(const char* op, const std::optional<Tensor>& grad_scale) {
  if (!grad_scale || !grad_scale->defined()) return 1.0;
  TG_CHECK_VALUE(grad_scale->numel() == 1, "[", op, "] expected a 1-element grad_scale, got shape ",
                 grad_scale->sizes());
  return 1.0 / grad_scale->item<double>();
}

}  // namespace tg
