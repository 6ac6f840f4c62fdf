#include "optim/adamw.h"


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
  detail::adam_family_step(
      "AdamW", param_groups_,
      [](const OptimizerOptions& options) { return group_options(static_cast<const AdamWOptions&>(options)); },
      [this](const Tensor& p) -> OptimizerParamState& { return state_of(p); }, /*decoupled_weight_decay=*/true);
  return loss;
}

}  // namespace tg::optim
