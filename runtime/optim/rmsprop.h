// RMSprop (LibTorch's torch::optim::RMSprop): a running average of squared gradients scales
// each step; optionally centered (minus the squared running mean) and with momentum. Written
// with plain tensor operators (no fused kernel exists). Invariants: lr, eps, momentum,
// weight_decay, alpha >= 0.
#pragma once

#include "optim/optimizer.h"

namespace tg::optim {

struct RMSpropOptions : public OptimizerOptions {
  RMSpropOptions(double lr = 1e-2);  // NOLINT: LibTorch's implicit form
  TG_ARG(double, lr);
  TG_ARG(double, alpha) = 0.99;
  TG_ARG(double, eps) = 1e-8;
  TG_ARG(double, weight_decay) = 0;
  TG_ARG(double, momentum) = 0;
  TG_ARG(bool, centered) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<RMSpropOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  std::vector<std::pair<std::string, double>> values() const override;
  bool set_value(const std::string& name, double value) override;
};

// momentum_buffer is used with a momentum, grad_avg when centered.
struct RMSpropParamState : public OptimizerParamState {
  TG_ARG(int64_t, step) = 0;
  TG_ARG(Tensor, square_avg);
  TG_ARG(Tensor, momentum_buffer);
  TG_ARG(Tensor, grad_avg);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override { return std::make_unique<RMSpropParamState>(*this); }
  NamedTensors named_tensors() const override;
  bool set_tensor(const std::string& name, const Tensor& value) override;
};

class RMSprop : public Optimizer {
 public:
  RMSprop(const std::vector<OptimizerParamGroup>& param_groups, RMSpropOptions defaults = {});
  RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {})
      : RMSprop(std::vector<OptimizerParamGroup>{std::move(params)}, defaults) {}
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_state() const override { return std::make_unique<RMSpropParamState>(); }
};

}  // namespace tg::optim
