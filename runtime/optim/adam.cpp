#include "optim/adam.h"

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "optim/param_batches.h"
#include "tensorgen/ops.h"

namespace tg::optim {

AdamOptions::AdamOptions(double lr) : lr_(lr) {}

std::vector<std::pair<std::string, double>> AdamOptions::values() const {
  return {{"lr", lr_},   {"beta1", std::get<0>(betas_)},  {"beta2", std::get<1>(betas_)},
          {"eps", eps_}, {"weight_decay", weight_decay_}, {"amsgrad", amsgrad_ ? 1.0 : 0.0}};
}

bool AdamOptions::set_value(const std::string& name, double value) {
  if (name == "lr") {
    lr_ = value;
  } else if (name == "beta1") {
    std::get<0>(betas_) = value;
  } else if (name == "beta2") {
    std::get<1>(betas_) = value;
  } else if (name == "eps") {
    eps_ = value;
  } else if (name == "weight_decay") {
    weight_decay_ = value;
  } else if (name == "amsgrad") {
    amsgrad_ = value != 0;
  } else {
    return false;
  }
  return true;
}

NamedTensors AdamParamState::named_tensors() const {
  return {{"step", tg::full({}, step_, TensorOptions().dtype(kLong))},
          {"exp_avg", exp_avg_},
          {"exp_avg_sq", exp_avg_sq_},
          {"max_exp_avg_sq", max_exp_avg_sq_}};
}

bool AdamParamState::set_tensor(const std::string& name, const Tensor& value) {
  if (name == "step") {
    TG_CHECK_VALUE(value.numel() == 1, "[Adam] expected a 1-element step count, got shape ", value.sizes());
    step_ = value.item<int64_t>();
  } else if (name == "exp_avg") {
    exp_avg_ = value;
  } else if (name == "exp_avg_sq") {
    exp_avg_sq_ = value;
  } else if (name == "max_exp_avg_sq") {
    max_exp_avg_sq_ = value;
  } else {
    return false;
  }
  return true;
}

namespace detail {

void check_adam_options(const char* op, const AdamGroupOptions& o) {
  TG_CHECK_VALUE(o.lr >= 0, "[", op, "] expected a non-negative learning rate, got ", o.lr);
  TG_CHECK_VALUE(o.eps >= 0, "[", op, "] expected a non-negative epsilon, got ", o.eps);
  TG_CHECK_VALUE(o.beta1 >= 0 && o.beta1 < 1, "[", op, "] expected beta1 in [0, 1), got ", o.beta1);
  TG_CHECK_VALUE(o.beta2 >= 0 && o.beta2 < 1, "[", op, "] expected beta2 in [0, 1), got ", o.beta2);
  TG_CHECK_VALUE(o.weight_decay >= 0, "[", op, "] expected a non-negative weight_decay, got ", o.weight_decay);
}

void adam_group_step(const std::vector<Tensor>& params, const std::vector<AdamParamState*>& states,
                     const AdamGroupOptions& o, bool decoupled_weight_decay) {
  ParamBatches batches;
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    AdamParamState& state = *states[i];
    if (!state.exp_avg().defined()) {
      state.exp_avg(tg::zeros_like(p));
      state.exp_avg_sq(tg::zeros_like(p));
    }
    if (o.amsgrad && !state.max_exp_avg_sq().defined()) state.max_exp_avg_sq(tg::zeros_like(p));
    // The kernel expects the step already counted, as torch.optim increments before updating.
    state.step(state.step() + 1);
    ParamBatch& batch = batches.batch_for(p);
    batch.params.push_back(p);
    batch.grads.push_back(p.grad());
    batch.state.push_back(state.exp_avg());
    batch.state2.push_back(state.exp_avg_sq());
    if (o.amsgrad) batch.state3.push_back(state.max_exp_avg_sq());
    batch.steps.push_back(tg::full({}, static_cast<double>(state.step()), TensorOptions().dtype(kDouble)));
  }
  for (ParamBatch& b : batches.batches()) {
    (decoupled_weight_decay ? tg::_fused_adamw_ : tg::_fused_adam_)(
        b.params, b.grads, b.state, b.state2, b.state3, b.steps, o.lr, o.beta1, o.beta2, o.weight_decay, o.eps,
        o.amsgrad, /*maximize=*/false, std::nullopt, std::nullopt);
  }
}

void adam_family_step(const char* op, std::vector<OptimizerParamGroup>& groups,
                      const std::function<AdamGroupOptions(const OptimizerOptions&)>& options_of,
                      const std::function<OptimizerParamState&(const Tensor&)>& state_of,
                      bool decoupled_weight_decay) {
  NoGradGuard no_grad;
  for (auto& group : groups) {
    const AdamGroupOptions o = options_of(group.options());
    check_adam_options(op, o);
    std::vector<Tensor> params;
    std::vector<AdamParamState*> states;
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      params.push_back(p);
      states.push_back(&static_cast<AdamParamState&>(state_of(p)));
    }
    adam_group_step(params, states, o, decoupled_weight_decay);
  }
}

}  // namespace detail

namespace {

detail::AdamGroupOptions group_options(const AdamOptions& o) {
  return {o.lr(), std::get<0>(o.betas()), std::get<1>(o.betas()), o.eps(), o.weight_decay(), o.amsgrad()};
}

}  // namespace

Adam::Adam(const std::vector<OptimizerParamGroup>& param_groups, AdamOptions defaults)
    : Optimizer("Adam", {}, std::make_unique<AdamOptions>(defaults)) {
  detail::check_adam_options("Adam", group_options(defaults));
  for (const auto& group : param_groups) add_param_group(group);
}

Tensor Adam::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  detail::adam_family_step(
      "Adam", param_groups_,
      [](const OptimizerOptions& options) { return group_options(static_cast<const AdamOptions&>(options)); },
      [this](const Tensor& p) -> OptimizerParamState& { return state_of(p); }, /*decoupled_weight_decay=*/false);
  return loss;
}

}  // namespace tg::optim
