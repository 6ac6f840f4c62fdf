// Adagrad (LibTorch's torch::optim::Adagrad): each element's step is scaled by the root of its
// summed squared gradients; the learning rate decays as lr / (1 + (step - 1) * lr_decay).
// Written with plain tensor operators. Invariants: lr, lr_decay, weight_decay,
// initial_accumulator_value, eps >= 0.
#pragma once

#include "optim/optimizer.h"

namespace tg::optim {

struct AdagradOptions : public OptimizerOptions {
  AdagradOptions(double lr = 1e-2);  // NOLINT: LibTorch's implicit form
  TG_ARG(double, lr);
  TG_ARG(double, lr_decay) = 0;
  TG_ARG(double, weight_decay) = 0;
  TG_ARG(double, initial_accumulator_value) = 0;
  TG_ARG(double, eps) = 1e-10;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdagradOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  std::vector<std::pair<std::string, double>> values() const override;
  bool set_value(const std::string& name, double value) override;
};

struct AdagradParamState : public OptimizerParamState {
  TG_ARG(int64_t, step) = 0;
  TG_ARG(Tensor, sum);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override { return std::make_unique<AdagradParamState>(*this); }
  NamedTensors named_tensors() const override;
  bool set_tensor(const std::string& name, const Tensor& value) override;
};

class Adagrad : public Optimizer {
 public:
  Adagrad(const std::vector<OptimizerParamGroup>& param_groups, AdagradOptions defaults = {});
  Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {})
      : Adagrad(std::vector<OptimizerParamGroup>{std::move(params)}, defaults) {}
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_state() const override { return std::make_unique<AdagradParamState>(); }
};

}  // namespace tg::optim
