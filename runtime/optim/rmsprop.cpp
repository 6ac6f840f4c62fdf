#include "optim/rmsprop.h"

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "tensorgen/ops.h"

namespace tg::optim {

RMSpropOptions::RMSpropOptions(double lr) : lr_(lr) {}

std::vector<std::pair<std::string, double>> RMSpropOptions::values() const {
  return {{"lr", lr_},
          {"alpha", alpha_},
          {"eps", eps_},
          {"weight_decay", weight_decay_},
          {"momentum", momentum_},
          {"centered", centered_ ? 1.0 : 0.0}};
}

bool RMSpropOptions::set_value(const std::string& name, double value) {
  if (name == "lr") {
    lr_ = value;
  } else if (name == "alpha") {
    alpha_ = value;
  } else if (name == "eps") {
    eps_ = value;
  } else if (name == "weight_decay") {
    weight_decay_ = value;
  } else if (name == "momentum") {
    momentum_ = value;
  } else if (name == "centered") {
    centered_ = value != 0;
  } else {
    return false;
  }
  return true;
}

NamedTensors RMSpropParamState::named_tensors() const {
  return {{"step", tg::full({}, step_, TensorOptions().dtype(kLong))},
          {"square_avg", square_avg_},
          {"momentum_buffer", momentum_buffer_},
          {"grad_avg", grad_avg_}};
}

bool RMSpropParamState::set_tensor(const std::string& name, const Tensor& value) {
  if (name == "step") {
    TG_CHECK_VALUE(value.numel() == 1, "[RMSprop] expected a 1-element step count, got shape ", value.sizes());
    step_ = value.item<int64_t>();
  } else if (name == "square_avg") {
    square_avg_ = value;
  } else if (name == "momentum_buffer") {
    momentum_buffer_ = value;
  } else if (name == "grad_avg") {
    grad_avg_ = value;
  } else {
    return false;
  }
  return true;
}

namespace {

void check_options(const RMSpropOptions& o) {
  TG_CHECK_VALUE(o.lr() >= 0, "[RMSprop] expected a non-negative learning rate, got ", o.lr());
  TG_CHECK_VALUE(o.eps() >= 0, "[RMSprop] expected a non-negative epsilon, got ", o.eps());
  TG_CHECK_VALUE(o.momentum() >= 0, "[RMSprop] expected a non-negative momentum, got ", o.momentum());
  TG_CHECK_VALUE(o.weight_decay() >= 0, "[RMSprop] expected a non-negative weight_decay, got ", o.weight_decay());
  TG_CHECK_VALUE(o.alpha() >= 0, "[RMSprop] expected a non-negative alpha, got ", o.alpha());
}

}  // namespace

RMSprop::RMSprop(const std::vector<OptimizerParamGroup>& param_groups, RMSpropOptions defaults)
    : Optimizer("RMSprop", {}, std::make_unique<RMSpropOptions>(defaults)) {
  check_options(defaults);
  for (const auto& group : param_groups) add_param_group(group);
}

Tensor RMSprop::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const RMSpropOptions&>(group.options());
    check_options(o);
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& state = static_cast<RMSpropParamState&>(state_of(p));
      if (!state.square_avg().defined()) state.square_avg(tg::zeros_like(p));
      if (o.momentum() > 0 && !state.momentum_buffer().defined()) state.momentum_buffer(tg::zeros_like(p));
      if (o.centered() && !state.grad_avg().defined()) state.grad_avg(tg::zeros_like(p));
      state.step(state.step() + 1);
      Tensor grad = p.grad();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      state.square_avg().mul_(o.alpha()).add_(grad * grad, 1 - o.alpha());
      Tensor avg;
      if (o.centered()) {
        state.grad_avg().mul_(o.alpha()).add_(grad, 1 - o.alpha());
        avg = (state.square_avg() - state.grad_avg() * state.grad_avg()).sqrt().add_(o.eps());
      } else {
        avg = state.square_avg().sqrt().add_(o.eps());
      }
      if (o.momentum() > 0) {
        state.momentum_buffer().mul_(o.momentum()).add_(grad / avg);
        p.sub_(state.momentum_buffer(), o.lr());
      } else {
        p.sub_(grad / avg, o.lr());
      }
    }
  }
  return loss;
}

}  // namespace tg::optim
