#include "autograd/custom_function.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include "autograd/autograd_meta.h"
#include "core/error.h"
#include "tensorgen/ops.h"

namespace tg::autograd {

void AutogradContext::save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }

void AutogradContext::mark_dirty(const variable_list& inputs) {
  dirty_.clear();
  for (const Tensor& t : inputs) dirty_.insert(t.unsafeGetTensorImpl());
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  non_differentiable_.clear();
  for (const Tensor& t : outputs) non_differentiable_.insert(t.unsafeGetTensorImpl());
}

void AutogradContext::save_variables(const variable_list& outputs) {
  saved_variables_.clear();
  const std::shared_ptr<Node> node = grad_fn_.lock();
  for (const Tensor& t : to_save_) {
    if (!t.defined()) {
      saved_variables_.emplace_back();
      continue;
    }
    // An output saved with its grad_fn would be a cycle node -> tensor -> node.
    const bool is_output = node != nullptr && std::any_of(outputs.begin(), outputs.end(), [&](const Tensor& out) {
      return out.is_same(t) && impl::get_autograd_meta(out) != nullptr && out.grad_fn() == node;
    });
    saved_variables_.emplace_back(t, is_output);
  }
  to_save_.clear();
}

variable_list AutogradContext::get_saved_variables() const {
  TG_CHECK(!has_freed_buffers_,
           "Trying to backward through the graph a second time (or directly access saved tensors after they have "
           "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
           "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
           "if you need to access saved tensors after calling backward.");
  const std::shared_ptr<Node> node = grad_fn_.lock();
  variable_list saved;
  saved.reserve(saved_variables_.size());
  for (const SavedVariable& variable : saved_variables_) {
    saved.push_back(variable.was_default_constructed() ? Tensor() : variable.unpack(node));
  }
  return saved;
}

bool AutogradContext::needs_input_grad(size_t index) const {
  const std::shared_ptr<Node> node = grad_fn_.lock();
  TG_CHECK(node != nullptr, "needs_input_grad: the function's node is gone");
  return node->should_compute_output(index);
}

void AutogradContext::release_variables() {
  for (SavedVariable& variable : saved_variables_) variable.reset_data();
  has_freed_buffers_ = true;
}

namespace detail {

std::string demangled_type_name(const std::type_info& type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(type.name());
}

variable_list CppNodeBase::run_backward(variable_list&& grads,
                                        const std::function<variable_list(AutogradContext*, variable_list)>& backward) {
  if (ctx_.materialize_grads()) {
    for (size_t i = 0; i < grads.size(); ++i) {
      if (grads[i].defined() || i >= num_inputs()) continue;
      const InputMetadata& metadata = input_metadata(i);
      if (metadata.dtype == ScalarType::Undefined) continue;
      grads[i] = tg::zeros(metadata.sizes, TensorOptions().dtype(metadata.dtype).device(metadata.device));
    }
  }
  variable_list result = backward(&ctx_, std::move(grads));
  const size_t num_arguments = is_tensor_argument_.size();
  const std::string function_name = name();
  TG_CHECK(result.size() >= num_arguments, "function ", function_name,
           " returned an incorrect number of gradients (expected ", num_arguments, ", got ", result.size(), ")");
  for (size_t i = num_arguments; i < result.size(); ++i) {
    TG_CHECK(!result[i].defined(), "function ", function_name, " returned an incorrect number of gradients (expected ",
             num_arguments, ", got ", result.size(), ")");
  }
  variable_list grad_inputs;
  grad_inputs.reserve(num_outputs());
  for (size_t i = 0; i < num_arguments; ++i) {
    if (is_tensor_argument_[i]) {
      grad_inputs.push_back(std::move(result[i]));
    } else {
      TG_CHECK(!result[i].defined(), "function ", function_name, " returned a gradient different than None at position ",
               i + 1, ", but the corresponding forward input was not a Variable");
    }
  }
  return grad_inputs;
}

void wrap_outputs(const std::shared_ptr<CppNodeBase>& node, const variable_list& inputs, variable_list& outputs,
                  bool is_executable) {
  AutogradContext& ctx = node->ctx_;
  if (!is_executable) {
    ctx.save_variables(outputs);  // kept for a later direct backward call; no history to make
    return;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor& output = outputs[i];
    if (!output.defined() || ctx.is_non_differentiable(output) || !is_floating_type(output.scalar_type())) {
      node->add_undefined_input_metadata();
      continue;
    }
    const bool is_input = std::any_of(inputs.begin(), inputs.end(), [&](const Tensor& in) { return in.is_same(output); });
    if (ctx.is_dirty(output)) {
      check_inplace("custom Function", output, true);
      const uint32_t output_nr = node->add_input_metadata(output);
      impl::rebase_history(output, Edge(node, output_nr));
      continue;
    }
    // An input returned as it is becomes an alias with this node's history, so that the
    // caller's tensor keeps its own (LibTorch returns a view of it).
    if (is_input) output = impl::alias_without_history(output);
    const uint32_t output_nr = node->add_input_metadata(output);
    impl::set_gradient_edge(output, Edge(node, output_nr));
  }
  ctx.save_variables(outputs);
}

}  // namespace detail
}  // namespace tg::autograd
