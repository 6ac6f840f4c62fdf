#include "autograd/input_buffer.h"

#include "autograd/grad_mode.h"
#include "tensorgen/ops.h"

namespace tg::autograd {

namespace {

// In-place accumulation is safe when no one else can observe the stored tensor (the buffer
// holds its only reference and it is not a view sharing memory with another tensor), its
// layout has no overlapping elements, and no graph is being recorded.
bool can_accumulate_in_place(const Tensor& stored, const Tensor& incoming) {
  return !GradMode::is_enabled() && stored.use_count() == 1 && stored.storage().use_count() == 1 &&
         stored.is_contiguous() && stored.sizes() == incoming.sizes() && stored.scalar_type() == incoming.scalar_type();
}

inline void accumulate(Tensor& stored, Tensor&& grad) {
  if (!stored.defined()) {
    stored = std::move(grad);
  } else if (can_accumulate_in_place(stored, grad)) {
    stored.add_(grad);
  } else {
    stored = tg::add(stored, grad);
  }
}

// Marks the tensor's memory as used by `stream`, so the allocator does not hand it to its
// own stream again before `stream` is done with it. Memory on another device is left alone.
void record_stream(const Tensor& t, const Stream& stream) {
  if (t.device() != stream.device()) return;
  device_guard_impl(stream.device().type())->record_data_ptr_on_stream(t.storage()->data_ptr(), stream);
}

// An event recorded on `stream` now.
Event event_on(const Stream& stream) {
  Event event(stream.device().type());
  event.record(stream);
  return event;
}

}  // namespace

void InputBuffer::add(size_t pos, Tensor&& grad, const std::optional<Stream>& producer,
                      const std::optional<Stream>& consumer) {
  if (!grad.defined()) return;
  if (pos >= buffer_.size()) buffer_.resize(pos + 1);
  if (grad.is_cpu()) {
    accumulate(buffer_[pos], std::move(grad));
    return;
  }
  add_on_device(pos, std::move(grad), producer, consumer);
}

// Note [Streams in backward] (the contract of PyTorch's input_buffer.cpp, in docs/autograd.md).
// A missing producer (the graph root, or a node whose outputs are all on the CPU) or consumer
// means the current stream of the gradient's device.
// First gradient of a slot: the accumulation stream is the consumer's if the gradient is on
// the consumer's device, else the producer's if it is on the producer's, else the device's
// current stream. The gradient is stored; when the consumer or the accumulation stream is not
// the producer's, an event on the producer's stream marks when it is ready.
// Later gradients: the accumulation stream waits for the producer (if they differ) and for the
// slot's ready event (if the slot was last written elsewhere), the memory of both operands is
// recorded on it, and the sum is formed on it; a ready event is recorded there when the
// consumer will run on another stream.
void InputBuffer::add_on_device(size_t pos, Tensor&& grad, const std::optional<Stream>& producer_stream,
                                const std::optional<Stream>& consumer_stream) {
  const Device device = grad.device();
  const DeviceGuardImpl* impl = device_guard_impl(device.type());
  TG_INTERNAL_ASSERT(impl != nullptr, "a gradient on ", device, " but no stream implementation for it");
  const Stream producer = producer_stream.value_or(impl->current_stream(device));
  const Stream consumer = consumer_stream.value_or(impl->current_stream(device));
  if (streams_ == nullptr) streams_ = std::make_unique<std::vector<SlotStreams>>();
  if (streams_->size() < buffer_.size()) streams_->resize(buffer_.size());
  SlotStreams& slot = (*streams_)[pos];

  if (!slot.accumulate.has_value()) {
    TG_INTERNAL_ASSERT(!buffer_[pos].defined(), "slot ", pos, " holds a device gradient without streams");
    if (consumer.device() == device) {
      slot.accumulate = consumer;
      // Recorded here too, in case no second gradient arrives to record it.
      if (consumer != producer) record_stream(grad, consumer);
    } else if (producer.device() == device) {
      slot.accumulate = producer;
    } else {
      slot.accumulate = impl->current_stream(device);
    }
    buffer_[pos] = std::move(grad);
    if (consumer != producer || *slot.accumulate != producer) slot.ready_event = event_on(producer);
    slot.ready = producer;
    return;
  }

  const Stream accumulate_on = *slot.accumulate;
  if (accumulate_on != producer) {
    event_on(producer).block(accumulate_on);
    record_stream(grad, accumulate_on);
  }
  if (accumulate_on != *slot.ready) {
    TG_INTERNAL_ASSERT(slot.ready_event.has_value(), "slot ", pos, " was written on another stream without an event");
    slot.ready_event->block(accumulate_on);
    record_stream(buffer_[pos], accumulate_on);
  }
  {
    const OptionalStreamGuard guard(accumulate_on);
    accumulate(buffer_[pos], std::move(grad));
  }
  if (consumer != accumulate_on) {
    slot.ready_event = event_on(accumulate_on);
  } else {
    slot.ready_event.reset();
  }
  slot.ready = accumulate_on;
}

void InputBuffer::wait_ready_on(const Stream& consumer) {
  for (size_t pos = 0; pos < streams_->size(); ++pos) {
    SlotStreams& slot = (*streams_)[pos];
    if (!buffer_[pos].defined() || !slot.ready_event.has_value()) continue;
    if (slot.ready == consumer) continue;
    slot.ready_event->block(consumer);
    record_stream(buffer_[pos], consumer);
  }
}

}  // namespace tg::autograd
