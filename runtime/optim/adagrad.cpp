#include "optim/adagrad.h"

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "tensorgen/ops.h"

namespace tg::optim {

AdagradOptions::AdagradOptions(double lr) : lr_(lr) {}

std::vector<std::pair<std::string, double>> AdagradOptions::values() const {
  return {{"lr", lr_},
          {"lr_decay", lr_decay_},
          {"weight_decay", weight_decay_},
          {"initial_accumulator_value", initial_accumulator_value_},
          {"eps", eps_}};
}

bool AdagradOptions::set_value(const std::string& name, double value) {
  if (name == "lr") {
    lr_ = value;
  } else if (name == "lr_decay") {
    lr_decay_ = value;
  } else if (name == "weight_decay") {
    weight_decay_ = value;
  } else if (name == "initial_accumulator_value") {
    initial_accumulator_value_ = value;
  } else if (name == "eps") {
    eps_ = value;
  } else {
    return false;
  }
  return true;
}

NamedTensors AdagradParamState::named_tensors() const {
  return {{"step", tg::full({}, step_, TensorOptions().dtype(kLong))}, {"sum", sum_}};
}

bool AdagradParamState::set_tensor(const std::string& name, const Tensor& value) {
  if (name == "step") {
    TG_CHECK_VALUE(value.numel() == 1, "[Adagrad] expected a 1-element step count, got shape ", value.sizes());
    step_ = value.item<int64_t>();
  } else if (name == "sum") {
    sum_ = value;
  } else {
    return false;
  }
  return true;
}

namespace {

void check_options(const AdagradOptions& o) {
  TG_CHECK_VALUE(o.lr() >= 0, "[Adagrad] expected a non-negative learning rate, got ", o.lr());
  TG_CHECK_VALUE(o.lr_decay() >= 0, "[Adagrad] expected a non-negative lr_decay, got ", o.lr_decay());
  TG_CHECK_VALUE(o.weight_decay() >= 0, "[Adagrad] expected a non-negative weight_decay, got ", o.weight_decay());
  TG_CHECK_VALUE(o.initial_accumulator_value() >= 0, "[Adagrad] expected a non-negative initial_accumulator_value, ",
                 "got ", o.initial_accumulator_value());
  TG_CHECK_VALUE(o.eps() >= 0, "[Adagrad] expected a non-negative epsilon, got ", o.eps());
}

}  // namespace

Adagrad::Adagrad(const std::vector<OptimizerParamGroup>& param_groups, AdagradOptions defaults)
    : Optimizer("Adagrad", {}, std::make_unique<AdagradOptions>(defaults)) {
  check_options(defaults);
  for (const auto& group : param_groups) add_param_group(group);
}

Tensor Adagrad::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdagradOptions&>(group.options());
    check_options(o);
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& state = static_cast<AdagradParamState&>(state_of(p));
      if (!state.sum().defined()) state.sum(tg::full_like(p, o.initial_accumulator_value()));
      state.step(state.step() + 1);
      Tensor grad = p.grad();
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      const double clr = o.lr() / (1 + static_cast<double>(state.step() - 1) * o.lr_decay());
      state.sum().add_(grad * grad);
      p.sub_(grad / state.sum().sqrt().add_(o.eps()), clr);
    }
  }
  return loss;
}

}  // namespace tg::optim
