// Adam (LibTorch's torch::optim::Adam: L2 weight decay added to the gradient, amsgrad
// optional), stepped by the fused _fused_adam_ kernel; AdamW (adamw.h) shares its state and
// step. Invariants: lr, eps, weight_decay >= 0 and 0 <= beta1, beta2 < 1.
#pragma once

#include <functional>

#include <tuple>

#include "optim/optimizer.h"

namespace tg::optim {

struct AdamOptions : public OptimizerOptions {
  AdamOptions(double lr = 1e-3);  // NOLINT: LibTorch's implicit form
  TG_ARG(double, lr);
  using Betas = std::tuple<double, double>;
  TG_ARG(Betas, betas) = std::make_tuple(0.9, 0.999);
  TG_ARG(double, eps) = 1e-8;
  TG_ARG(double, weight_decay) = 0;
  TG_ARG(bool, amsgrad) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdamOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  std::vector<std::pair<std::string, double>> values() const override;
  bool set_value(const std::string& name, double value) override;
};

// step counts the steps taken; the averages are undefined before the first step
// (max_exp_avg_sq also while amsgrad is off).
struct AdamParamState : public OptimizerParamState {
  TG_ARG(int64_t, step) = 0;
  TG_ARG(Tensor, exp_avg);
  TG_ARG(Tensor, exp_avg_sq);
  TG_ARG(Tensor, max_exp_avg_sq);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override { return std::make_unique<AdamParamState>(*this); }
  NamedTensors named_tensors() const override;
  bool set_tensor(const std::string& name, const Tensor& value) override;
};

class Adam : public Optimizer {
 public:
  Adam(const std::vector<OptimizerParamGroup>& param_groups, AdamOptions defaults = {});
  Adam(std::vector<Tensor> params, AdamOptions defaults = {})
      : Adam(std::vector<OptimizerParamGroup>{std::move(params)}, defaults) {}
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::unique_ptr<OptimizerParamState> make_state() const override { return std::make_unique<AdamParamState>(); }
};

namespace detail {

// The hyper-parameters of one Adam or AdamW group.
struct AdamGroupOptions {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad;
};
void check_adam_options(const char* op, const AdamGroupOptions& o);
// One fused step over `params` that have gradients, with their states.
void adam_group_step(const std::vector<Tensor>& params, const std::vector<AdamParamState*>& states,
                     const AdamGroupOptions& o, bool decoupled_weight_decay);
// One step of Adam or AdamW over every group (they differ only in where weight decay enters):
// `options_of` reads a group's options, `state_of` finds a parameter's state.
void adam_family_step(const char* op, std::vector<OptimizerParamGroup>& groups,
                      const std::function<AdamGroupOptions(const OptimizerOptions&)>& options_of,
                      const std::function<OptimizerParamState&(const Tensor&)>& state_of,
                      bool decoupled_weight_decay);

}  // namespace detail
}  // namespace tg::optim
