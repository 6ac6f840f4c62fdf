#include "optim/sgd.h"

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "optim/param_batches.h"
#include "tensorgen/ops.h"

namespace tg::optim {

SGDOptions::SGDOptions(double lr) : lr_(lr) {}

std::vector<std::pair<std::string, double>> SGDOptions::values() const {
  return {{"lr", lr_},
          {"momentum", momentum_},
          {"dampening", dampening_},
          {"weight_decay", weight_decay_},
          {"nesterov", nesterov_ ? 1.0 : 0.0}};
}

bool SGDOptions::set_value(const std::string& name, double value) {
  if (name == "lr") {
    lr_ = value;
  } else if (name == "momentum") {
    momentum_ = value;
  } else if (name == "dampening") {
    dampening_ = value;
  } else if (name == "weight_decay") {
    weight_decay_ = value;
  } else if (name == "nesterov") {
    nesterov_ = value != 0;
  } else {
    return false;
  }
  return true;
}

bool SGDParamState::set_tensor(const std::string& name, const Tensor& value) {
  if (name != "momentum_buffer") return false;
  momentum_buffer_ = value;
  return true;
}

namespace {

void check_options(const SGDOptions& o) {
  TG_CHECK_VALUE(o.lr() >= 0, "[SGD] expected a non-negative learning rate, got ", o.lr());
  TG_CHECK_VALUE(o.momentum() >= 0, "[SGD] expected a non-negative momentum, got ", o.momentum());
  TG_CHECK_VALUE(o.weight_decay() >= 0, "[SGD] expected a non-negative weight_decay, got ", o.weight_decay());
  TG_CHECK_VALUE(!o.nesterov() || (o.momentum() > 0 && o.dampening() == 0),
                 "[SGD] Nesterov momentum requires a momentum and zero dampening, got momentum=", o.momentum(),
                 " and dampening=", o.dampening());
}

}  // namespace

SGD::SGD(const std::vector<OptimizerParamGroup>& param_groups, SGDOptions defaults)
    : Optimizer("SGD", {}, std::make_unique<SGDOptions>(defaults)) {
  check_options(defaults);
  for (const auto& group : param_groups) add_param_group(group);
}

Tensor SGD::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    check_options(o);
    // The fused kernel takes one is_first_step per call: parameters whose momentum buffer is
    // new go in a batch of their own.
    ParamBatches batches;
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      bool first_step = false;
      Tensor buffer;
      if (o.momentum() != 0) {
        auto& state = static_cast<SGDParamState&>(state_of(p));
        if (!state.momentum_buffer().defined()) {
          state.momentum_buffer(tg::zeros_like(p));
          first_step = true;
        }
        buffer = state.momentum_buffer();
      }
      ParamBatch& batch = batches.batch_for(p, first_step);
      batch.params.push_back(p);
      batch.grads.push_back(p.grad());
      if (buffer.defined()) batch.state.push_back(buffer);
    }
    for (ParamBatch& batch : batches.batches()) {
      tg::_fused_sgd_(batch.params, batch.grads, batch.state, o.weight_decay(), o.momentum(), o.lr(), o.dampening(),
                      o.nesterov(), /*maximize=*/false, /*is_first_step=*/batch.flag);
    }
  }
  return loss;
}

}  // namespace tg::optim
