#include "autograd/saved_variable.h"

#include <sstream>

#include "autograd/autograd_meta.h"
#include "autograd/forward_ad.h"
#include "autograd/node.h"
#include "ops/print.h"

namespace tg::autograd {
namespace {

// Note [Saved outputs keep their tangents]: an output is saved as an alias without history,
// which would drop its forward-mode tangents too; a backward formula that reads the output
// (tanh's grad * (1 - result^2)) then differentiates as if the output were a constant under
// forward-over-reverse (jacfwd(jacrev(f)), hessian). The alias gets the tangents at save time
// and hands them to every unpacked alias, as PyTorch's SavedVariable keeps fw_grad.
void copy_tangents(const Tensor& from, const Tensor& to) {
  const AutogradMeta* meta = impl::get_autograd_meta(from);
  if (meta == nullptr) return;
  for (const auto& [level, slot] : meta->tangents_) {
    forward_ad::detail::set_tangent(to, level, slot->value, "saved output");
  }
}

}  // namespace

SavedVariable::SavedVariable(const Tensor& tensor, bool is_output) {
  if (!tensor.defined()) return;
  was_saved_ = true;
  saved_version_ = tensor._version();
  // A leaf has no grad_fn to make a cycle with, so it is kept as it is even when it is an
  // output (a non-differentiable one).
  is_output_ = is_output && !tensor.is_leaf();
  if (is_output_) {
    output_nr_ = tensor.output_nr();
    data_ = impl::alias_without_history(tensor);
    copy_tangents(tensor, data_);
  } else {
    data_ = tensor;
  }
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& saved_for) const {
  if (!was_saved_) return Tensor();
  TG_CHECK(!data_released_,
           "Trying to backward through the graph a second time (or directly access saved tensors after they have "
           "already been freed). Specify retain_graph=true if you need to backward through the graph a second time.");
  if (data_._version() != saved_version_) raise_version_error(saved_for);
  if (!is_output_ || saved_for == nullptr) return data_;
  // A fresh alias each time: the unpacked tensor is output output_nr_ of the node again.
  Tensor result = impl::alias_without_history(data_);
  impl::set_gradient_edge(result, Edge(saved_for, output_nr_));
  copy_tangents(data_, result);
  return result;
}

void SavedVariable::reset_data() {
  data_.reset();
  data_released_ = true;
}

void SavedVariable::raise_version_error(const std::shared_ptr<Node>& saved_for) const {
  // The node that made the tensor: the saving node for its own output, else the tensor's
  // grad_fn now (after an in-place change, the in-place op's node), as PyTorch reports it.
  std::shared_ptr<Node> made_by = is_output_ ? saved_for : data_.grad_fn();
  const uint32_t output_nr = is_output_ ? output_nr_ : data_.output_nr();
  std::ostringstream message;
  message << "one of the variables needed for gradient computation has been modified by an inplace operation: ["
          << type_string(data_) << " " << data_.sizes() << "]";
  if (made_by != nullptr) message << ", which is output " << output_nr << " of " << made_by->name() << ",";
  message << " is at version " << data_._version() << "; expected version " << saved_version_ << " instead.";
  TG_ERROR(message.str());
}

}  // namespace tg::autograd
