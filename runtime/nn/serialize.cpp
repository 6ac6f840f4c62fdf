#include "nn/serialize.h"

#include <map>
#include <set>
#include <sstream>

#include "autograd/grad_mode.h"
#include "serialize/safetensors.h"
#include "tensorgen/ops.h"

namespace tg {
namespace nn {

std::vector<std::pair<std::string, Tensor>> state_dict(const Module& module) {
  std::vector<std::pair<std::string, Tensor>> result = module.named_parameters().pairs();
  std::set<std::string> names;
  for (const auto& [name, tensor] : result) names.insert(name);
  for (const auto& [name, tensor] : module.named_buffers().pairs()) {
    TG_CHECK(names.insert(name).second, "[nn::state_dict] '", name, "' of ", module.name(),
             " is both a parameter and a buffer; a state dict needs unique names");
    result.emplace_back(name, tensor);
  }
  return result;
}

void load_state_dict(Module& module, const std::vector<std::pair<std::string, Tensor>>& tensors,
                     const std::string& source) {
  std::vector<std::pair<std::string, Tensor>> targets = state_dict(module);
  std::map<std::string, const Tensor*> given;
  for (const auto& [name, tensor] : tensors) {
    TG_CHECK(given.emplace(name, &tensor).second, "[tg::load] ", source, ": '", name, "' appears twice");
  }
  std::vector<std::string> missing;
  for (const auto& [name, target] : targets) {
    auto it = given.find(name);
    if (it == given.end()) {
      missing.push_back(name);
      continue;
    }
    const Tensor& value = *it->second;
    TG_CHECK(value.sizes().vec() == target.sizes().vec(), "[tg::load] ", source, ": '", name, "' has shape ",
             value.sizes(), " but the module's has shape ", target.sizes());
    given.erase(it);
  }
  auto join = [](const auto& names) {
    std::ostringstream out;
    bool first = true;
    for (const auto& name : names) {
      out << (first ? "" : ", ") << "'" << name << "'";
      first = false;
    }
    return out.str();
  };
  TG_CHECK(missing.empty(), "[tg::load] ", source, " lacks ", join(missing), " of ", module.name());
  std::vector<std::string> unexpected;
  for (const auto& [name, tensor] : given) unexpected.push_back(name);
  TG_CHECK(unexpected.empty(), "[tg::load] ", source, " has ", join(unexpected), ", which ", module.name(),
           " does not have");
  // Every check passed: only now change the module, so that a bad file leaves it as it was.
  NoGradGuard no_grad;
  std::map<std::string, Tensor> values(tensors.begin(), tensors.end());
  for (auto& [name, target] : targets) target.copy_(values.at(name));
}

}  // namespace nn

void save(const nn::Module& module, const std::string& path) { serialize::save_tensors(nn::state_dict(module), path); }

void load(nn::Module& module, const std::string& path) {
  nn::load_state_dict(module, serialize::load_tensors(path), path);
}

}  // namespace tg
