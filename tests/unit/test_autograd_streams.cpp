// The stream contract of the autograd engine (Note [Streams in backward] in
// docs/autograd.md): a DeviceGuardImpl that logs what the engine asks of streams and events.
// Without a CUDA backend it simulates the device: "CUDA" tensors in host memory (a fake
// allocator), the CPU kernels serving the CUDA key (a fallback that redispatches to them).
// With one (a GPU, or the emulated device of -Demulated_cuda=enabled, which CI runs) the
// logger wraps the backend's DeviceGuardImpl and forwards every request to it, so the same
// expectations hold for real kernels, streams, events and the caching allocator.
#include <doctest/doctest.h>

#include "core/cuda_availability.h"

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "core/device_guard_impl.h"
#include "core/stream_guard.h"

namespace {

const tg::Device kDevice(tg::kCUDA, 0);

// One device; streams are ids; every request is logged as text. With `real` set, every
// request also goes to the backend's implementation, which then owns streams and events.
class LoggingStreams final : public tg::DeviceGuardImpl {
 public:
  tg::Device exchange_device(tg::Device device) const override {
    return real != nullptr ? real->exchange_device(device) : device;
  }
  tg::Stream current_stream(tg::Device device) const override {
    return real != nullptr ? real->current_stream(device) : tg::Stream(kDevice, current);
  }
  tg::Stream default_stream(tg::Device device) const override {
    return real != nullptr ? real->default_stream(device) : tg::Stream(kDevice, 0);
  }
  tg::Stream exchange_stream(tg::Stream stream) const override {
    if (real != nullptr) return real->exchange_stream(stream);
    const tg::Stream previous(kDevice, current);
    current = stream.id();
    return previous;
  }
  void record_event(void** event, tg::Stream stream) const override {
    if (real != nullptr) {
      real->record_event(event, stream);
    } else if (*event == nullptr) {
      *event = new int(0);
    }
    log.push_back("record e" + std::to_string(number(*event)) + " on s" + std::to_string(stream.id()));
  }
  void block_on_event(void* event, tg::Stream stream) const override {
    if (real != nullptr) real->block_on_event(event, stream);
    log.push_back("s" + std::to_string(stream.id()) + " waits e" + std::to_string(number(event)));
  }
  void destroy_event(void* event, tg::Device device) const noexcept override {
    numbers.erase(event);
    if (real != nullptr) {
      real->destroy_event(event, device);
    } else {
      delete static_cast<int*>(event);
    }
  }
  void record_data_ptr_on_stream(const tg::DataPtr& data, tg::Stream stream) const override {
    if (real != nullptr) real->record_data_ptr_on_stream(data, stream);
    log.push_back("memory on s" + std::to_string(stream.id()));
  }
  tg::Stream::Id current_id() const { return current_stream(kDevice).id(); }

  const tg::DeviceGuardImpl* real = nullptr;
  mutable tg::Stream::Id current = 0;
  mutable std::vector<std::string> log;

 private:
  // Events are numbered 1, 2, ... in the order they are first recorded (an address reused
  // after destroy_event is a new event).
  int number(void* event) const {
    auto [it, fresh] = numbers.emplace(event, next_number);
    if (fresh) ++next_number;
    return it->second;
  }
  mutable std::map<void*, int> numbers;
  mutable int next_number = 1;
};

class HostMemoryAllocator final : public tg::Allocator {
 public:
  tg::DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return tg::DataPtr(nullptr, nullptr, nullptr, kDevice);
    void* data = std::malloc(nbytes);
    return tg::DataPtr(data, data, &std::free, kDevice);
  }
};

void run_on_cpu_kernels(const tg::OperatorHandle& op, tg::DispatchKeySet /*ks*/, tg::Stack* stack) {
  op.redispatchBoxed(tg::DispatchKeySet(tg::DispatchKey::CPU), stack);
}

// Installs the logging device for one test case and removes it after.
// Where the build has a CUDA backend but the machine has no device (no GPU, not the emulated
// one), the cases are skipped: the backend's kernels own the CUDA key, so nothing can run.
bool device_here() {
  return tg::device_guard_impl(tg::kCUDA) == nullptr || tg::cuda::is_available();
}

struct SimulatedDevice {
  SimulatedDevice() : library(tg::Library::Kind::Impl, "_", tg::DispatchKey::CUDA) {
    streams.real = tg::device_guard_impl(tg::kCUDA);
    if (streams.real == nullptr) {
      tg::set_allocator(tg::kCUDA, &allocator);
      library.fallback(tg::KernelFunction::makeFromBoxedFunction(&run_on_cpu_kernels));
    }
    tg::set_device_guard_impl(tg::kCUDA, &streams);
  }
  ~SimulatedDevice() {
    tg::set_device_guard_impl(tg::kCUDA, streams.real);
    if (streams.real == nullptr) tg::set_allocator(tg::kCUDA, nullptr);
  }

  // A float tensor on the device.
  tg::Tensor tensor(std::initializer_list<float> values) const {
    const bool simulated = streams.real == nullptr;
    tg::Tensor t = tg::make_empty_tensor({static_cast<int64_t>(values.size())}, tg::kFloat,
                                         simulated ? kDevice : tg::Device(tg::kCPU));
    float* data = t.data_ptr<float>();
    for (float v : values) *data++ = v;
    return simulated ? t : t.to(kDevice);
  }
  // Element i of a float tensor on the device.
  float value(const tg::Tensor& t, int64_t i) const {
    return (streams.real == nullptr ? t : t.to(tg::kCPU)).data_ptr<float>()[i];
  }

  HostMemoryAllocator allocator;
  LoggingStreams streams;
  tg::Library library;
};

}  // namespace

TEST_CASE("autograd streams: a node runs on its forward's stream, and the caller waits for the leaves" * doctest::skip(!device_here())) {
  SimulatedDevice device;
  tg::Tensor x = device.tensor({1, 2, 3}).requires_grad_();
  tg::Stream::Id stream_seen_by_hook = -1;
  tg::Tensor loss;
  {
    const tg::OptionalStreamGuard forward_stream(tg::Stream(kDevice, 1));
    tg::Tensor y = x * 2.0;
    y.register_hook([&](const tg::Tensor&) {
      stream_seen_by_hook = device.streams.current_id();
      return tg::Tensor();
    });
    loss = y.sum();
  }
  CHECK(device.streams.current_id() == 0);
  device.streams.log.clear();
  loss.backward(device.tensor({1}).reshape({}));

  CHECK(stream_seen_by_hook == 1);  // MulBackward0 ran on stream 1
  CHECK(device.streams.current_id() == 0);
  CHECK(device.value(x.grad(), 2) == 2.0f);
  // The root gradient, made on stream 0, reaches SumBackward0 on stream 1: its memory is
  // recorded there and stream 1 waits for an event on stream 0. Nothing else crosses
  // streams until the end, when the caller's stream 0 waits for the leaf's stream 1.
  const std::vector<std::string> expected = {"memory on s1", "record e1 on s0", "s1 waits e1", "memory on s1",
                                             "record e2 on s1", "s0 waits e2"};
  CHECK(device.streams.log == expected);
}

TEST_CASE("autograd streams: gradients from two streams accumulate after both are ready" * doctest::skip(!device_here())) {
  SimulatedDevice device;
  tg::Tensor x = device.tensor({1, 1}).requires_grad_();
  tg::Tensor a, b;
  {
    const tg::OptionalStreamGuard s1(tg::Stream(kDevice, 1));
    a = x * 2.0;  // x's AccumulateGrad is made here: the leaf's stream is 1
  }
  {
    const tg::OptionalStreamGuard s2(tg::Stream(kDevice, 2));
    b = x * 3.0;
  }
  const tg::Tensor loss = (a + b).sum();
  device.streams.log.clear();
  loss.backward(device.tensor({1}).reshape({}));

  CHECK(device.value(x.grad(), 0) == 5.0f);
  CHECK(device.value(x.grad(), 1) == 5.0f);
  const std::vector<std::string>& log = device.streams.log;
  std::string text;
  for (const std::string& entry : log) text += entry + "; ";
  INFO(text);
  const std::vector<std::string> expected = {
      // AddBackward0 (stream 0) hands the gradient to each multiplication's stream.
      "memory on s1", "record e1 on s0", "memory on s2", "record e2 on s0",
      // b's MulBackward0 (stream 2, made later, runs first) waits for it, and its gradient
      // reaches the leaf's AccumulateGrad (stream 1) with an event on stream 2.
      "s2 waits e2", "memory on s2", "memory on s1", "record e3 on s2",
      // a's MulBackward0 (stream 1) waits for its input, then adds into the leaf's slot on
      // stream 1 once the slot's value from stream 2 is ready.
      "s1 waits e1", "memory on s1", "s1 waits e3", "memory on s1",
      // The caller's stream 0 waits for the leaf's stream 1.
      "record e4 on s1", "s0 waits e4"};
  CHECK(log == expected);
}
