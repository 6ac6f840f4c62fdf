// InputBuffer: the gradients one node receives in a backward pass, a slot per output of the
// forward op. Invariant: slot i == the sum of every gradient that arrived for it so far
// (undefined while none has). The engine keeps one per node that is not ready yet.
// For gradients on a device with streams it also keeps, per slot, the stream the sum is
// formed on and an event the consumer must wait for before reading it: see Note [Streams in
// backward] in docs/autograd.md. CPU gradients never touch that state.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "autograd/node.h"
#include "core/stream_guard.h"

namespace tg::autograd {

class InputBuffer {
 public:
  explicit InputBuffer(size_t size) : buffer_(size) {}

  // Adds `grad` into slot `pos` (growing the buffer for a node that recorded no input
  // metadata). The first gradient is stored as it is; a later one is added in place into
  // the stored one when the buffer holds its only reference, it is dense and grad mode is
  // off, and out of place otherwise (so nothing another node or the user holds changes, and
  // create_graph records the sum).
  // `producer` is the stream of the node that made `grad` and `consumer` that of the node
  // that will read it (nullopt for CPU nodes). For a gradient on a device with streams, the
  // sum is formed on the accumulation stream chosen from them, after waiting for the
  // producer; CPU gradients ignore both.
  void add(size_t pos, Tensor&& grad, const std::optional<Stream>& producer, const std::optional<Stream>& consumer);

  // Makes `consumer` wait for every slot whose gradient is not ready on it yet, and marks
  // that memory as used by it. The engine calls it just before the consumer runs.
  void wait_ready(const std::optional<Stream>& consumer) {
    if (consumer.has_value() && streams_ != nullptr) wait_ready_on(*consumer);
  }

  size_t size() const noexcept { return buffer_.size(); }
  const Tensor& operator[](size_t pos) const { return buffer_.at(pos); }

  // Moves the gradients out.
  static variable_list variables(InputBuffer&& buffer) { return std::move(buffer.buffer_); }

 private:
  // Per slot, for a gradient on a device with streams.
  struct SlotStreams {
    std::optional<Stream> accumulate;  // where later gradients are added into the slot
    std::optional<Stream> ready;       // where the slot's value was last written
    std::optional<Event> ready_event;  // recorded on `ready` when another stream must wait
  };
  void wait_ready_on(const Stream& consumer);
  void add_on_device(size_t pos, Tensor&& grad, const std::optional<Stream>& producer,
                     const std::optional<Stream>& consumer);

  variable_list buffer_;
  // One entry per slot, made when the first device gradient arrives: CPU passes never
  // allocate it, and it costs them one pointer.
  std::unique_ptr<std::vector<SlotStreams>> streams_;
};

}  // namespace tg::autograd
