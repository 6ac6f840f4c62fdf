// Learning-rate schedulers over an optimizer's groups: each epoch's rate is a closed form of
// the group's base rate (its rate when the scheduler was made) and last_epoch, the number of
// step() calls so far. Invariant: after construction and after each step(), every group's lr
// is get_lrs() for last_epoch. See Note [Scheduler epochs].
#pragma once

#include <cstdint>
#include <vector>

#include "optim/optimizer.h"

namespace tg::optim {

class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  // Counts one epoch and sets every group's lr for it.
  void step();
  // The rates step() (or the constructor) last set, one per group.
  const std::vector<double>& get_last_lr() const noexcept { return last_lrs_; }
  int64_t last_epoch() const noexcept { return last_epoch_; }

 protected:
  // The rates for last_epoch_, one per group.
  virtual std::vector<double> get_lrs() const = 0;
  // Sets the rates for last_epoch_; derived constructors call it once they are set up.
  void apply();
  std::vector<double> get_current_lrs() const;

  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  int64_t last_epoch_ = 0;
  std::vector<double> last_lrs_;
};

// lr = base * gamma^(floor(epoch / step_size)).
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, unsigned step_size, double gamma = 0.1);

 private:
  std::vector<double> get_lrs() const override;
  unsigned step_size_;
  double gamma_;
};

// lr = base * gamma^(number of milestones <= epoch).
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);

 private:
  std::vector<double> get_lrs() const override;
  std::vector<int64_t> milestones_;
  double gamma_;
};

// lr = eta_min + (base - eta_min) * (1 + cos(pi * epoch / T_max)) / 2.
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);

 private:
  std::vector<double> get_lrs() const override;
  int64_t T_max_;
  double eta_min_;
};

// lr = base * (start + (end - start) * min(epoch, total_iters) / total_iters).
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0, int64_t total_iters = 5);

 private:
  std::vector<double> get_lrs() const override;
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

}  // namespace tg::optim
