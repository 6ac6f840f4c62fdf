// tg::save / tg::load of a module: its state dict (named_parameters() then named_buffers(),
// by dotted name) in the safetensors format, as LibTorch's torch::save(model, path) and
// torch::load(model, path). Loading copies into the module's existing tensors (so members and
// optimizers keep them) and is strict: every name must be in the file with the same shape,
// and the file must hold no other name; the dtype converts, as copy_ does.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/module.h"
#include "nn/module_holder.h"

namespace tg {
namespace nn {
// The module's parameters and buffers by dotted name (tg::Error if a name is both).
std::vector<std::pair<std::string, Tensor>> state_dict(const Module& module);
// Copies `tensors` into the module's state, checking names and shapes (strict, see above);
// `source` names the origin in error messages.
void load_state_dict(Module& module, const std::vector<std::pair<std::string, Tensor>>& tensors,
                     const std::string& source = "<state_dict>");
}  // namespace nn

void save(const nn::Module& module, const std::string& path);
void load(nn::Module& module, const std::string& path);

template <typename Contained>
void save(const nn::ModuleHolder<Contained>& module, const std::string& path) {
  save(static_cast<const nn::Module&>(*module), path);
}
template <typename Contained>
void load(nn::ModuleHolder<Contained>& module, const std::string& path) {
  load(static_cast<nn::Module&>(*module), path);
}
template <typename M, typename = std::enable_if_t<std::is_base_of_v<nn::Module, M>>>
void save(const std::shared_ptr<M>& module, const std::string& path) {
  TG_CHECK(module != nullptr, "[tg::save] the module is empty (nullptr)");
  save(static_cast<const nn::Module&>(*module), path);
}
template <typename M, typename = std::enable_if_t<std::is_base_of_v<nn::Module, M>>>
void load(const std::shared_ptr<M>& module, const std::string& path) {
  TG_CHECK(module != nullptr, "[tg::load] the module is empty (nullptr)");
  load(static_cast<nn::Module&>(*module), path);
}

}  // namespace tg
