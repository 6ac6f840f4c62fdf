// tg::optim::Optimizer: parameters in groups, each group with its own options (a clone of the
// optimizer's defaults unless given), and per-parameter state keyed by the parameter's
// TensorImpl. Invariants: every group has options; state_ holds entries only for parameters
// of some group; step() changes parameters and state under NoGradGuard.
// Threading: an optimizer is used from one thread at a time.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "core/arg.h"

namespace tg::optim {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// The hyper-parameters of one group; values() and set_value() name every field, for saving
// and loading (booleans as 0 and 1).
class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
  // Every field, by name.
  virtual std::vector<std::pair<std::string, double>> values() const = 0;
  // Sets the field `name`; false when there is no such field.
  virtual bool set_value(const std::string& name, double value) = 0;
};

// The state an optimizer keeps for one parameter. named_tensors() is what is saved (a count
// such as `step` as a 0-dim int64 tensor); set_tensor() restores one entry.
class OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  virtual std::unique_ptr<OptimizerParamState> clone() const = 0;
  virtual NamedTensors named_tensors() const = 0;
  // Returns false for a name this state does not have.
  virtual bool set_tensor(const std::string& name, const Tensor& value) = 0;
};

class OptimizerParamGroup {
 public:
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}  // NOLINT: LibTorch's implicit form
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) = default;
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) = default;

  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

class Optimizer {
 public:
  using LossClosure = std::function<Tensor()>;

  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  Optimizer(Optimizer&&) = default;
  virtual ~Optimizer() = default;

  // Runs `closure` (with grad mode on) when given, then updates every parameter that has a
  // gradient. Returns the closure's loss, or an undefined tensor.
  virtual Tensor step(LossClosure closure = nullptr) = 0;
  // LibTorch's name for this optimizer ("SGD", "Adam", ...), written into saved state.
  const std::string& name() const noexcept { return name_; }

  // Adds a group; without options it takes a copy of the defaults. A parameter may be in one
  // group only.
  void add_param_group(const OptimizerParamGroup& param_group);
  // Adds parameters to the first group (LibTorch's add_parameters).
  void add_parameters(const std::vector<Tensor>& parameters);
  // Resets the gradients: to undefined (set_to_none, LibTorch's default) or to zeros.
  void zero_grad(bool set_to_none = true);

  // The parameters of the first group (LibTorch's parameters()).
  const std::vector<Tensor>& parameters() const noexcept;
  // The number of parameters over all groups.
  size_t size() const noexcept;
  OptimizerOptions& defaults() noexcept { return *defaults_; }
  const OptimizerOptions& defaults() const noexcept { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state() noexcept { return state_; }
  const std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state() const noexcept { return state_; }

  // The optimizer's state as named tensors ("state.<i>.<field>", i counting parameters over
  // the groups in order) and string metadata (the name, group sizes and options). See Note
  // [Saved optimizer state].
  std::pair<NamedTensors, std::map<std::string, std::string>> state_dict() const;
  // Restores what state_dict() gave, checking that it fits this optimizer's groups.
  void load_state_dict(const NamedTensors& tensors, const std::map<std::string, std::string>& metadata,
                       const std::string& source = "<state_dict>");
  void save(const std::string& path) const;
  void load(const std::string& path);

 protected:
  Optimizer(std::string name, std::vector<OptimizerParamGroup> param_groups,
            std::unique_ptr<OptimizerOptions> defaults);
  // A fresh, empty state of this optimizer's kind, which load_state_dict fills.
  virtual std::unique_ptr<OptimizerParamState> make_state() const = 0;
  // The state of `param`, made by make_state() on first use.
  OptimizerParamState& state_of(const Tensor& param);
  // Runs `closure` with grad mode on (if any), as step() does before its update.
  static Tensor run_closure(const LossClosure& closure);

  std::string name_;
  std::vector<OptimizerParamGroup> param_groups_;
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>> state_;
  std::unique_ptr<OptimizerOptions> defaults_;
};

}  // namespace tg::optim

namespace tg {

// torch::save(optimizer, path) / torch::load(optimizer, path), in the safetensors format.
void save(const optim::Optimizer& optimizer, const std::string& path);
void load(optim::Optimizer& optimizer, const std::string& path);

}  // namespace tg
