// AdamW (LibTorch's torch::optim::AdamW): Adam with decoupled weight decay (the parameter
// shrinks by lr * weight_decay before the update, default 1e-2), on the fused _fused_adamw_
// kernel. Its state is Adam's.
#pragma once

#include "optim/adam.h"

namespace tg::optim {

struct AdamWOptions : public OptimizerOptions {
  AdamWOptions(double lr = 1e-3);  // NOLINT: LibTorch's implicit form
  TG_ARG(double, lr);
  using Betas = std::tuple<double, double>;
  TG_ARG(Betas, betas) = std::make_tuple(0.9, 0.999);
  TG_ARG(double, eps) = 1e-8;
  TG_ARG(double, weight_decay) = 1e-2;
  TG_ARG(bool, amsgrad) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdamWOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  std::vector<std::pair<std::string, double>> values() const override;
  bool set_value(const std::string& name, double value) override;
};

using AdamWParamState = AdamParamState;

class AdamW : public Optimizer {
 public:
  AdamW(const std::vector<OptimizerParamGroup>& param_groups, AdamWOptions defaults = {});
  AdamW(std::vector<Tensor> params, AdamWOptions defaults = {})
      : AdamW(std::vector<OptimizerParamGroup>{std::move(params)}, defaults) {}
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_state() const override { return std::make_unique<AdamWParamState>(); }
};

}  // namespace tg::optim
