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

// Note [Engine and devices]: where PyTorch's input_buffer.cpp synchronises streams. When the
// producer and consumer run on different CUDA streams, the producer records an event on its
// stream and the consumer's stream waits on it before the gradient is read or accumulated;
// the accumulation itself runs on the consumer's stream when the gradient lives on its
// device. Both arguments are unused on CPU, where every node runs on the calling thread.
void synchronize_streams(const std::optional<Device>& producer, const std::optional<Device>& consumer) {
  (void)producer;
  (void)consumer;
}

}  // namespace

void InputBuffer::add(size_t pos, Tensor&& grad, const std::optional<Device>& producer,
                      const std::optional<Device>& consumer) {
  if (!grad.defined()) return;
  if (pos >= buffer_.size()) buffer_.resize(pos + 1);
  synchronize_streams(producer, consumer);
  Tensor& stored = buffer_[pos];
  if (!stored.defined()) {
    stored = std::move(grad);
  } else if (can_accumulate_in_place(stored, grad)) {
    stored.add_(grad);
  } else {
    stored = tg::add(stored, grad);
  }
}

}  // namespace tg::autograd
