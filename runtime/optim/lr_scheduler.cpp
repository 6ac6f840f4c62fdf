#include "optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.h"

// Note [Scheduler epochs]
// The schedulers count as torch.optim.lr_scheduler does: the constructor sets the rates of
// epoch 0 (LinearLR's start factor applies at once) and the n-th step() those of epoch n,
// so StepLR(opt, 30) decays after the 30th step() call. (LibTorch's C++ StepLR decays one
// call later; tensorgen follows the Python behaviour that every published schedule, and the
// other three schedulers here, assume.) Rates are computed in closed form from the base
// rates, so a rate the user sets by hand between steps is replaced at the next step().

namespace tg::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  base_lrs_ = get_current_lrs();
  last_lrs_ = base_lrs_;
}

std::vector<double> LRScheduler::get_current_lrs() const {
  std::vector<double> lrs;
  for (const auto& group : optimizer_.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

void LRScheduler::apply() {
  std::vector<double> lrs = get_lrs();
  auto& groups = optimizer_.param_groups();
  TG_CHECK_VALUE(lrs.size() == groups.size(), "[LRScheduler] expected the optimizer's ", base_lrs_.size(),
                 " parameter groups, got ", groups.size(), " (groups were added after the scheduler was made)");
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(lrs[i]);
  last_lrs_ = std::move(lrs);
}

void LRScheduler::step() {
  ++last_epoch_;
  apply();
}

StepLR::StepLR(Optimizer& optimizer, unsigned step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  TG_CHECK_VALUE(step_size > 0, "[StepLR] expected a positive step_size, got ", step_size);
  apply();
}

std::vector<double> StepLR::get_lrs() const {
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, static_cast<double>(last_epoch_ / step_size_)));
  return lrs;
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  TG_CHECK_VALUE(std::is_sorted(milestones_.begin(), milestones_.end()),
                 "[MultiStepLR] expected milestones in increasing order");
  apply();
}

std::vector<double> MultiStepLR::get_lrs() const {
  const auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, static_cast<double>(passed)));
  return lrs;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  TG_CHECK_VALUE(T_max > 0, "[CosineAnnealingLR] expected a positive T_max, got ", T_max);
  apply();
}

std::vector<double> CosineAnnealingLR::get_lrs() const {
  const double phase = std::numbers::pi * static_cast<double>(last_epoch_) / static_cast<double>(T_max_);
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(eta_min_ + (base - eta_min_) * (1 + std::cos(phase)) / 2);
  return lrs;
}

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, int64_t total_iters)
    : LRScheduler(optimizer), start_factor_(start_factor), end_factor_(end_factor), total_iters_(total_iters) {
  TG_CHECK_VALUE(start_factor > 0 && start_factor <= 1, "[LinearLR] expected start_factor in (0, 1], got ",
                 start_factor);
  TG_CHECK_VALUE(end_factor >= 0 && end_factor <= 1, "[LinearLR] expected end_factor in [0, 1], got ", end_factor);
  TG_CHECK_VALUE(total_iters > 0, "[LinearLR] expected a positive total_iters, got ", total_iters);
  apply();
}

std::vector<double> LinearLR::get_lrs() const {
  const double t = static_cast<double>(std::min(last_epoch_, total_iters_)) / static_cast<double>(total_iters_);
  const double factor = start_factor_ + (end_factor_ - start_factor_) * t;
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * factor);
  return lrs;
}

}  // namespace tg::optim
