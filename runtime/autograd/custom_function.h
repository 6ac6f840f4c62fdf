// Custom autograd functions, as LibTorch's torch::autograd::Function<T>: a user's struct T
// with static forward(AutogradContext*, args...) and backward(AutogradContext*,
// variable_list grad_outputs); T::apply(args...) runs forward without recording and, when
// an input requires grad, makes a CppNode<T> the grad_fn of the outputs. backward returns
// one gradient per forward argument (undefined for the non-tensor ones, and for tensors
// without gradient). Invariant: the node's next edges are the tensor arguments, in order.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "autograd/saved_variable.h"
#include "autograd/variable_type_utils.h"
#include "core/ivalue.h"

namespace tg::autograd {

// What forward hands to backward. Threading: used by one forward call and then by the
// backward passes through its node (one at a time, under the node's mutex).
struct AutogradContext {
  AutogradContext() = default;
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;

  // Non-tensor state for backward (LibTorch's saved_data).
  std::unordered_map<std::string, IValue> saved_data;

  // Tensors backward reads (inputs or outputs of forward); version-checked on access.
  void save_for_backward(variable_list to_save);
  // Inputs forward modified in place: they become outputs of the node (rebased history).
  void mark_dirty(const variable_list& inputs);
  // Outputs that get no gradient (indices, masks): they do not require grad.
  void mark_non_differentiable(const variable_list& outputs);
  // Whether undefined output gradients reach backward as zeros (true, the default) or undefined.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }

  variable_list get_saved_variables() const;
  // Whether the gradient of tensor argument `index` (counting tensor arguments only) is needed.
  bool needs_input_grad(size_t index) const;

  // --- used by Function<T>::apply and CppNode<T> ---
  bool is_dirty(const Tensor& t) const { return dirty_.count(t.unsafeGetTensorImpl()) != 0; }
  bool is_non_differentiable(const Tensor& t) const { return non_differentiable_.count(t.unsafeGetTensorImpl()) != 0; }
  bool materialize_grads() const { return materialize_grads_; }
  // Turns the tensors given to save_for_backward into SavedVariables, once the outputs are known.
  void save_variables(const variable_list& outputs);
  void release_variables();
  std::weak_ptr<Node> grad_fn_;

 private:
  variable_list to_save_;
  std::vector<SavedVariable> saved_variables_;
  std::unordered_set<const TensorImpl*> dirty_;
  std::unordered_set<const TensorImpl*> non_differentiable_;
  bool materialize_grads_ = true;
  bool has_freed_buffers_ = false;
};

namespace detail {

std::string demangled_type_name(const std::type_info& type);

// The node of a custom function: runs the user's backward. The type-independent work is in
// CppNodeBase (custom_function.cpp); CppNode<T> only calls T::backward.
class CppNodeBase : public Node {
 public:
  AutogradContext ctx_;
  std::vector<bool> is_tensor_argument_;  // per forward argument
  void release_variables() override { ctx_.release_variables(); }

 protected:
  // Materializes undefined gradients, runs `backward`, checks and maps its result back to
  // one gradient per tensor argument.
  variable_list run_backward(variable_list&& grads,
                             const std::function<variable_list(AutogradContext*, variable_list)>& backward);
};

template <class T>
class CppNode final : public CppNodeBase {
 public:
  std::string name() const override { return demangled_type_name(typeid(T)); }

 protected:
  variable_list apply(variable_list&& grads) override {
    return run_backward(std::move(grads), [](AutogradContext* ctx, variable_list g) {
      return T::backward(ctx, std::move(g));
    });
  }
};

template <typename Arg>
void collect_tensor_argument(std::vector<Tensor>& tensors, std::vector<bool>& is_tensor, const Arg& arg) {
  if constexpr (std::is_convertible_v<const Arg&, const Tensor&>) {
    tensors.push_back(arg);
    is_tensor.push_back(true);
  } else {
    is_tensor.push_back(false);
  }
}

// Gives the outputs their history (node output i = outputs[i]), honouring mark_dirty and
// mark_non_differentiable, and saves what forward asked to save.
void wrap_outputs(const std::shared_ptr<CppNodeBase>& node, const variable_list& inputs, variable_list& outputs,
                  bool is_executable);

}  // namespace detail

template <class T>
struct Function {
  template <typename X = T, typename... Args>
  static auto apply(Args&&... args) {
    std::vector<Tensor> inputs;
    std::vector<bool> is_tensor;
    (detail::collect_tensor_argument(inputs, is_tensor, args), ...);
    const bool is_executable = GradMode::is_enabled() && [&] {
      for (const Tensor& t : inputs) {
        if (t.defined() && t.requires_grad()) return true;
      }
      return false;
    }();
    auto node = std::make_shared<detail::CppNode<X>>();
    node->is_tensor_argument_ = std::move(is_tensor);
    if (is_executable) {
      edge_list edges;
      for (const Tensor& t : inputs) detail::append_edges(edges, t);
      node->set_next_edges(std::move(edges));
    }
    node->ctx_.grad_fn_ = node;
    using Result = decltype(X::forward(&node->ctx_, std::forward<Args>(args)...));
    Result result = [&] {
      AutoGradMode no_grad(false);  // forward's operations are not recorded (as in LibTorch)
      return X::forward(&node->ctx_, std::forward<Args>(args)...);
    }();
    if constexpr (std::is_same_v<Result, variable_list>) {
      detail::wrap_outputs(node, inputs, result, is_executable);
      return result;
    } else {
      static_assert(std::is_convertible_v<Result, Tensor>,
                    "forward must return a Tensor (Variable) or a variable_list");
      variable_list outputs{Tensor(result)};
      detail::wrap_outputs(node, inputs, outputs, is_executable);
      return outputs[0];
    }
  }
};

}  // namespace tg::autograd
