#include "optim/optimizer.h"

#include <cstdio>
#include <set>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "serialize/safetensors.h"
#include "tensorgen/ops.h"

// Note [Saved optimizer state]
// An optimizer saves as one safetensors file: tensors "state.<i>.<field>" (i counts the
// parameters over the groups in order, as PyTorch's state_dict numbers them; counts such as
// `step` are 0-dim int64 tensors) and metadata strings "optimizer" (the name), "param_groups"
// (their number), "param_groups.<g>.size" and "param_groups.<g>.<option>" (each option as
// %.17g, which reads back to the same double). Loading checks the name, the group sizes and
// each state tensor's shape against its parameter before changing anything, and moves state
// to the parameter's device and dtype; parameters themselves are not part of the file (they
// are the model's: tg::save(module)).

namespace tg::optim {

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.options_ ? other.options_->clone() : nullptr) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) {
    params_ = other.params_;
    options_ = other.options_ ? other.options_->clone() : nullptr;
  }
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  TG_CHECK(options_ != nullptr, "[OptimizerParamGroup] expected a group with options, got one without");
  return *options_;
}

const OptimizerOptions& OptimizerParamGroup::options() const {
  TG_CHECK(options_ != nullptr, "[OptimizerParamGroup] expected a group with options, got one without");
  return *options_;
}

Optimizer::Optimizer(std::string name, std::vector<OptimizerParamGroup> param_groups,
                     std::unique_ptr<OptimizerOptions> defaults)
    : name_(std::move(name)), defaults_(std::move(defaults)) {
  for (const auto& group : param_groups) add_param_group(group);
}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  std::set<const void*> existing;
  for (const auto& group : param_groups_) {
    for (const Tensor& p : group.params()) existing.insert(p.unsafeGetTensorImpl());
  }
  for (const Tensor& p : param_group.params()) {
    TG_CHECK_VALUE(p.defined(), "[", name(), "] expected defined parameters, got an undefined tensor");
    TG_CHECK_VALUE(p.is_floating_point(), "[", name(), "] expected floating-point parameters, got ", p.scalar_type());
    TG_CHECK_VALUE(existing.insert(p.unsafeGetTensorImpl()).second, "[", name(),
                   "] expected each parameter in one group only, got one twice (some parameters appear in more ",
                   "than one parameter group)");
  }
  OptimizerParamGroup group(param_group.params(),
                            param_group.has_options() ? param_group.options().clone() : defaults_->clone());
  param_groups_.push_back(std::move(group));
}

void Optimizer::add_parameters(const std::vector<Tensor>& parameters) {
  TG_CHECK(!param_groups_.empty(), "[", name(), "] expected a parameter group to add parameters to, got none");
  // Checked as a group of their own (defined, floating, not already present), then moved.
  add_param_group(OptimizerParamGroup(parameters, param_groups_[0].options().clone()));
  std::vector<Tensor> added = std::move(param_groups_.back().params());
  param_groups_.pop_back();
  auto& first = param_groups_[0].params();
  first.insert(first.end(), added.begin(), added.end());
}

void Optimizer::zero_grad(bool set_to_none) {
  for (auto& group : param_groups_) {
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      if (set_to_none) {
        p.mutable_grad() = Tensor();
      } else {
        NoGradGuard no_grad;
        p.mutable_grad() = p.grad().detach();
        p.mutable_grad().zero_();
      }
    }
  }
}

const std::vector<Tensor>& Optimizer::parameters() const noexcept {
  static const std::vector<Tensor> none;
  return param_groups_.empty() ? none : param_groups_[0].params();
}

size_t Optimizer::size() const noexcept {
  size_t n = 0;
  for (const auto& group : param_groups_) n += group.params().size();
  return n;
}

OptimizerParamState& Optimizer::state_of(const Tensor& param) {
  auto& slot = state_[param.unsafeGetTensorImpl()];
  if (!slot) slot = make_state();
  return *slot;
}

Tensor Optimizer::run_closure(const LossClosure& closure) {
  if (!closure) return Tensor();
  AutoGradMode enable_grad(true);
  return closure();
}

namespace {

std::string format_double(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

const std::string& metadata_at(const std::map<std::string, std::string>& metadata, const std::string& key,
                               const std::string& source) {
  auto it = metadata.find(key);
  TG_CHECK_VALUE(it != metadata.end(), "[Optimizer::load] ", source, ": expected metadata \"", key,
                 "\" of saved optimizer state, got none");
  return it->second;
}

double parse_double(const std::string& text, const std::string& key, const std::string& source) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  TG_CHECK_VALUE(used == text.size() && !text.empty(), "[Optimizer::load] ", source, ": expected a number in \"", key,
                 "\", got \"", text, "\"");
  return value;
}

}  // namespace

std::pair<NamedTensors, std::map<std::string, std::string>> Optimizer::state_dict() const {
  NamedTensors tensors;
  std::map<std::string, std::string> metadata{{"optimizer", name()},
                                              {"param_groups", std::to_string(param_groups_.size())}};
  size_t index = 0;
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const auto& group = param_groups_[g];
    const std::string prefix = "param_groups." + std::to_string(g) + ".";
    metadata[prefix + "size"] = std::to_string(group.params().size());
    for (const auto& [key, value] : group.options().values()) metadata[prefix + key] = format_double(value);
    for (const Tensor& p : group.params()) {
      auto it = state_.find(p.unsafeGetTensorImpl());
      if (it != state_.end()) {
        for (auto& [field, t] : it->second->named_tensors()) {
          if (t.defined()) tensors.emplace_back("state." + std::to_string(index) + "." + field, t);
        }
      }
      ++index;
    }
  }
  return {std::move(tensors), std::move(metadata)};
}

void Optimizer::load_state_dict(const NamedTensors& tensors, const std::map<std::string, std::string>& metadata,
                                const std::string& source) {
  const std::string& saved_name = metadata_at(metadata, "optimizer", source);
  TG_CHECK_VALUE(saved_name == name(), "[Optimizer::load] ", source, ": expected the state of a ", name(),
                 " optimizer, got that of ", saved_name);
  const std::string& groups = metadata_at(metadata, "param_groups", source);
  TG_CHECK_VALUE(groups == std::to_string(param_groups_.size()), "[Optimizer::load] ", source, ": expected ",
                 param_groups_.size(), " parameter groups, got ", groups);
  std::vector<const Tensor*> params;
  std::vector<std::unique_ptr<OptimizerOptions>> options;
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const std::string prefix = "param_groups." + std::to_string(g) + ".";
    const std::string& size = metadata_at(metadata, prefix + "size", source);
    TG_CHECK_VALUE(size == std::to_string(param_groups_[g].params().size()), "[Optimizer::load] ", source,
                   ": expected group ", g, " of ", param_groups_[g].params().size(), " parameters, got ", size);
    for (const Tensor& p : param_groups_[g].params()) params.push_back(&p);
    options.push_back(param_groups_[g].options().clone());
    for (const auto& field : options.back()->values()) {
      const std::string key = prefix + field.first;
      TG_INTERNAL_ASSERT(
          options.back()->set_value(field.first, parse_double(metadata_at(metadata, key, source), key, source)));
    }
  }
  // Everything is checked into `loaded` before the optimizer changes, so a bad file leaves it as it was.
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>> loaded;
  for (const auto& [key, value] : tensors) {
    const size_t dot = key.find('.', 6);
    const bool well_formed = key.rfind("state.", 0) == 0 && dot != std::string::npos && dot > 6 && dot <= 6 + 9 &&
                             key.find_first_not_of("0123456789", 6) == dot;
    TG_CHECK_VALUE(well_formed, "[Optimizer::load] ", source, ": expected tensors named state.<index>.<field>, got \"",
                   key, "\"");
    const size_t index = std::stoul(key.substr(6, dot - 6));
    TG_CHECK_VALUE(index < params.size(), "[Optimizer::load] ", source, ": expected state of parameters 0 to ",
                   params.size() - 1, ", got \"", key, "\"");
    const Tensor& param = *params[index];
    Tensor t = value;
    if (t.dim() > 0 || param.dim() == 0) {
      TG_CHECK_VALUE(t.sizes() == param.sizes(), "[Optimizer::load] ", source, ": expected \"", key, "\" of shape ",
                     param.sizes(), " like parameter ", index, ", got ", t.sizes());
      if (t.is_floating_point()) t = t.to(param.options());
    }
    auto& slot = loaded[param.unsafeGetTensorImpl()];
    if (!slot) slot = make_state();
    TG_CHECK_VALUE(slot->set_tensor(key.substr(dot + 1), t), "[Optimizer::load] ", source,
                   ": expected state fields of ", name(), ", got \"", key.substr(dot + 1), "\" in \"", key, "\"");
  }
  for (size_t g = 0; g < param_groups_.size(); ++g) param_groups_[g].set_options(std::move(options[g]));
  state_ = std::move(loaded);
}

void Optimizer::save(const std::string& path) const {
  auto [tensors, metadata] = state_dict();
  serialize::save_tensors(tensors, path, metadata);
}

void Optimizer::load(const std::string& path) {
  serialize::SafetensorsFile file = serialize::load_file(path);
  load_state_dict(file.tensors, file.metadata, path);
}

}  // namespace tg::optim

namespace tg {

void save(const optim::Optimizer& optimizer, const std::string& path) { optimizer.save(path); }
void load(optim::Optimizer& optimizer, const std::string& path) { optimizer.load(path); }

}  // namespace tg
