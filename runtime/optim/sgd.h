// SGD with momentum, dampening, Nesterov momentum and L2 weight decay (LibTorch's
// torch::optim::SGD), stepped by the fused _fused_sgd_ kernel. Invariants: lr, momentum and
// weight_decay are non-negative; nesterov needs momentum > 0 and dampening == 0.
#pragma once

#include "optim/optimizer.h"

namespace tg::optim {

struct SGDOptions : public OptimizerOptions {
  SGDOptions(double lr);  // NOLINT: LibTorch's implicit form, SGD(params, 0.1)
  TG_ARG(double, lr);
  TG_ARG(double, momentum) = 0;
  TG_ARG(double, dampening) = 0;
  TG_ARG(double, weight_decay) = 0;
  TG_ARG(bool, nesterov) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<SGDOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  std::vector<std::pair<std::string, double>> values() const override;
  bool set_value(const std::string& name, double value) override;
};

// momentum_buffer is undefined until the first step with momentum.
struct SGDParamState : public OptimizerParamState {
  TG_ARG(Tensor, momentum_buffer);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override { return std::make_unique<SGDParamState>(*this); }
  NamedTensors named_tensors() const override { return {{"momentum_buffer", momentum_buffer_}}; }
  bool set_tensor(const std::string& name, const Tensor& value) override;
};

class SGD : public Optimizer {
 public:
  SGD(const std::vector<OptimizerParamGroup>& param_groups, SGDOptions defaults);
  SGD(std::vector<Tensor> params, SGDOptions defaults)
      : SGD(std::vector<OptimizerParamGroup>{std::move(params)}, defaults) {}
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_state() const override { return std::make_unique<SGDParamState>(); }
};

}  // namespace tg::optim
