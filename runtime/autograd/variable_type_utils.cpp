#include "autograd/variable_type_utils.h"

#include "autograd/functions.h"
#include "autograd/inplace_check_hook.h"
#include "tensorgen/ops.h"

namespace tg::autograd {

namespace {
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void raise_no_node() {
  ::tg::detail::internal_assert_failed(TG_SOURCE_LOCATION, "node != nullptr", "set_history needs a node");
}
}  // namespace

void set_history(const Tensor& output, const std::shared_ptr<Node>& node) {
  if (node == nullptr) raise_no_node();
  if (!output.defined()) {
    node->add_undefined_input_metadata();
    return;
  }
  const uint32_t output_nr = node->add_input_metadata(output);
  // Only floating tensors can require grad; others keep their slot and get no history.
  if (output.is_floating_point()) impl::set_gradient_edge(output, Edge(node, output_nr));
}

void set_history(const std::vector<Tensor>& outputs, const std::shared_ptr<Node>& node) {
  for (const Tensor& output : outputs) set_history(output, node);
}

void skip_history(const std::shared_ptr<Node>& node) { node->add_undefined_input_metadata(); }

namespace {
InplaceCheckHook inplace_check_hook = nullptr;
}  // namespace

void set_inplace_check_hook(InplaceCheckHook hook) { inplace_check_hook = hook; }

void check_inplace(std::string_view op, const Tensor& self, bool requires_grad) {
  if (inplace_check_hook != nullptr) inplace_check_hook(op, self);
  if (!requires_grad || !GradMode::is_enabled()) return;
  impl::adopt_untracked_view(self);
  const AutogradMeta* meta = impl::get_autograd_meta(self);
  if (meta != nullptr && meta->view_ != nullptr) {
    TG_CHECK(!meta->view_->created_in_no_grad,
             "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that "
             "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both "
             "the view and the inplace either both inside the no_grad block (if you don't want the inplace to be "
             "tracked) or both outside (if you want the inplace to be tracked).");
    TG_CHECK(!(self.requires_grad() && meta->view_->base.is_leaf()),
             "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  }
  TG_CHECK(!(self.requires_grad() && self.is_leaf()),
           "a leaf Variable that requires grad is being used in an in-place operation.");
}

void check_inplace(std::string_view op, TensorList self, bool requires_grad) {
  for (const Tensor& t : self) check_inplace(op, t, requires_grad);
}

void set_inplace_history(TensorList self, const std::shared_ptr<Node>& node) {
  for (const Tensor& t : self) {
    const uint32_t output_nr = node->add_input_metadata(t);
    if (t.is_floating_point()) impl::rebase_history(t, Edge(node, output_nr));
  }
}

std::vector<std::vector<int64_t>> to_args_sizes(TensorList tensors) {
  std::vector<std::vector<int64_t>> sizes;
  sizes.reserve(tensors.size());
  for (const Tensor& t : tensors) sizes.push_back(t.sizes().vec());
  return sizes;
}

std::vector<ScalarType> to_args_scalartypes(TensorList tensors) {
  std::vector<ScalarType> dtypes;
  dtypes.reserve(tensors.size());
  for (const Tensor& t : tensors) dtypes.push_back(t.scalar_type());
  return dtypes;
}

void check_no_requires_grad_for_out(std::string_view op, bool requires_grad) {
  // PyTorch names the operator without its overload: "add(): ...".
  const std::string_view name = op.substr(0, op.find('.'));
  TG_CHECK(!requires_grad, name,
           "(): functions with out=... arguments don't support automatic differentiation, but one of the arguments "
           "requires grad.");
}

std::shared_ptr<Node> make_not_implemented_node(std::string op, edge_list next_edges) {
  return make_node<NotImplemented>(op, std::move(next_edges));
}

bool is_expandable_to(IntArrayRef shape, IntArrayRef desired) {
  if (shape.size() > desired.size()) return false;
  const size_t leading = desired.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != desired[leading + i] && shape[i] != 1) return false;
  }
  return true;
}

Tensor sum_to(const Tensor& grad, IntArrayRef sizes) {
  if (grad.sizes() == sizes) return grad;
  TG_CHECK(is_expandable_to(sizes, grad.sizes()), "[sum_to] cannot reduce a gradient of shape ", grad.sizes(),
           " to shape ", sizes, ": ", sizes, " does not broadcast to ", grad.sizes());
  const size_t leading = grad.sizes().size() - sizes.size();
  std::vector<int64_t> dims;
  for (size_t d = 0; d < grad.sizes().size(); ++d) {
    if (d < leading || (sizes[d - leading] == 1 && grad.sizes()[d] != 1)) dims.push_back(static_cast<int64_t>(d));
  }
  if (dims.empty()) return grad;
  Tensor reduced = grad.sum(IntArrayRef(dims), /*keepdim=*/true);
  return leading > 0 ? reduced.view(sizes) : reduced;
}

}  // namespace tg::autograd
