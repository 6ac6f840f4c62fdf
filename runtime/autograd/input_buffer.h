// InputBuffer: the gradients one node receives in a backward pass, a slot per output of the
// forward op. Invariant: slot i == the sum of every gradient that arrived for it so far
// (undefined while none has). The engine keeps one per node that is not ready yet.
// See Note [Engine and devices] in docs/autograd.md for the device/stream contract of add().
#pragma once

#include <optional>

#include "autograd/node.h"

namespace tg::autograd {

class InputBuffer {
 public:
  explicit InputBuffer(size_t size) : buffer_(size) {}

  // Adds `grad` into slot `pos` (growing the buffer for a node that recorded no input
  // metadata). The first gradient is stored as it is; a later one is added in place into
  // the stored one when the buffer holds its only reference, it is dense and grad mode is
  // off, and out of place otherwise (so nothing another node or the user holds changes, and
  // create_graph records the sum).
  // `producer` is the device of the node that made `grad`, `consumer` the device of the
  // node that will read it: on CPU nothing happens with them; with CUDA this is where the
  // consumer's stream waits for the producer's (Note [Engine and devices]).
  void add(size_t pos, Tensor&& grad, const std::optional<Device>& producer, const std::optional<Device>& consumer);

  size_t size() const noexcept { return buffer_.size(); }
  const Tensor& operator[](size_t pos) const { return buffer_.at(pos); }

  // Moves the gradients out.
  static variable_list variables(InputBuffer&& buffer) { return std::move(buffer.buffer_); }

 private:
  variable_list buffer_;
};

}  // namespace tg::autograd
