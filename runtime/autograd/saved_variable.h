// SavedVariable: a tensor a backward node keeps from the forward pass.
// It records the tensor's version at save time; unpack() raises the "modified by an inplace
// operation" error when version() != saved version. A node's own output is saved as an
// alias without history (keeping its grad_fn would be a reference cycle) and gets
// (saved_for, output_nr) back on unpack; any other tensor is kept as it is, as PyTorch's
// saved_original_ does.
#pragma once

#include <memory>
#include <string>

#include "autograd/edge.h"
#include "core/tensor.h"

namespace tg::autograd {

class Node;

class SavedVariable {
 public:
  SavedVariable() = default;
  // `is_output`: the tensor is an output of the node that saves it.
  SavedVariable(const Tensor& tensor, bool is_output);

  // The saved tensor, with its autograd history. `saved_for` is the node that saved it
  // (needed to restore an output's grad_fn and to name the node in errors). Throws
  // tg::Error after reset_data() ("backward through the graph a second time") and when the
  // tensor was modified in place since it was saved.
  Tensor unpack(const std::shared_ptr<Node>& saved_for = nullptr) const;

  // Frees the tensor (the engine does this after backward without retain_graph).
  void reset_data();
  bool was_default_constructed() const { return !was_saved_; }

 private:
  [[noreturn]] void raise_version_error(const std::shared_ptr<Node>& saved_for) const;

  Tensor data_;  // an output: an alias without history; anything else: the tensor itself
  uint32_t output_nr_ = 0;
  uint32_t saved_version_ = 0;
  bool is_output_ = false;
  bool was_saved_ = false;
  bool data_released_ = false;
};

}  // namespace tg::autograd
