#include "optim/adamw.h"

#include "autograd/grad_mode.h"

namespace tg::optim {

AdamWOptions::AdamWOptions(double lr) : lr_(lr) {}

std::vector<std::pair<std::string, double>> AdamWOptions::values() const {
  return AdamOptions(lr_).betas(betas_).eps(eps_).weight_decay(weight_decay_).amsgrad(amsgrad_).values();
}

bool AdamWOptions::set_value(const std::string& name, double value) {
  AdamOptions same(lr_);
  same.betas(betas_).eps(eps_).weight_decay(weight_decay_).amsgrad(amsgrad_);
  if (!same.set_value(name, value)) return false;
  lr_ = same.lr(), betas_ = same.betas(), eps_ = same.eps(), weight_decay_ = same.weight_decay();
  amsgrad_ = same.amsgrad();
  return true;
}

namespace {

detail::AdamGroupOptions group_options(const AdamWOptions& o) {
  return {o.lr(), std::get<0>(o.betas()), std::get<1>(o.betas()), o.eps(), o.weight_decay(), o.amsgrad()};
}

}  // namespace

AdamW::AdamW(const std::vector<OptimizerParamGroup>& param_groups, AdamWOptions defaults)
    : Optimizer("AdamW", {}, std::make_unique<AdamWOptions>(defaults)) {
  detail::check_adam_options("AdamW", group_options(defaults));
  for (const auto& group : param_groups) add_param_group(group);
}

Tensor AdamW::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const detail::AdamGroupOptions o = group_options(static_cast<const AdamWOptions&>(group.options()));
    detail::check_adam_options("AdamW", o);
    std::vector<Tensor> params;
    std::vector<AdamParamState*> states;
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      params.push_back(p);
      states.push_back(&static_cast<AdamParamState&>(state_of(p)));
    }
    detail::adam_group_step(params, states, o, /*decoupled_weight_decay=*/true);
  }
  return loss;
}

}  // namespace tg::optim
