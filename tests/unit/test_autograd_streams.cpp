// The stream contract of the autograd engine (Note [Streams in backward] in
// docs/autograd.md), on a simulated device with streams: "CUDA" tensors in host memory (a
// fake allocator), the CPU kernels serving the CUDA key (a fallback that redispatches to
// them), and a DeviceGuardImpl that logs what the engine asks of streams and events. It runs
// where the build has no CUDA backend; with one, the real kernels own the CUDA key, and the
// cuda suite tests the same contract on a GPU.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "core/device_guard_impl.h"
#include "core/stream_guard.h"

namespace {

const tg::Device kDevice(tg::kCUDA, 0);

// One device; streams are ids; every request is logged as text.
class LoggingStreams final : public tg::DeviceGuardImpl {
 public:
  tg::Device exchange_device(tg::Device device) const override { return device; }
  tg::Stream current_stream(tg::Device) const override { return tg::Stream(kDevice, current); }
  tg::Stream default_stream(tg::Device) const override { return tg::Stream(kDevice, 0); }
  tg::Stream exchange_stream(tg::Stream stream) const override {
    const tg::Stream previous(kDevice, current);
    current = stream.id();
    return previous;
  }
  void record_event(void** event, tg::Stream stream) const override {
    if (*event == nullptr) *event = new int(next_event++);
    log.push_back("record e" + std::to_string(*static_cast<int*>(*event)) + " on s" + std::to_string(stream.id()));
  }
  void block_on_event(void* event, tg::Stream stream) const override {
    log.push_back("s" + std::to_string(stream.id()) + " waits e" + std::to_string(*static_cast<int*>(event)));
  }
  void destroy_event(void* event, tg::Device) const noexcept override { delete static_cast<int*>(event); }
  void record_data_ptr_on_stream(const tg::DataPtr&, tg::Stream stream) const override {
    log.push_back("memory on s" + std::to_string(stream.id()));
  }

  mutable tg::Stream::Id current = 0;
  mutable int next_event = 1;
  mutable std::vector<std::string> log;
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

// Installs the simulated device for one test case and removes it after.
struct SimulatedDevice {
  SimulatedDevice() : library(tg::Library::Kind::Impl, "_", tg::DispatchKey::CUDA) {
    tg::set_allocator(tg::kCUDA, &allocator);
    tg::set_device_guard_impl(tg::kCUDA, &streams);
    library.fallback(tg::KernelFunction::makeFromBoxedFunction(&run_on_cpu_kernels));
  }
  ~SimulatedDevice() {
    tg::set_device_guard_impl(tg::kCUDA, nullptr);
    tg::set_allocator(tg::kCUDA, nullptr);
  }

  // A float tensor on the simulated device, written through its host memory.
  tg::Tensor tensor(std::initializer_list<float> values) const {
    tg::Tensor t = tg::make_empty_tensor({static_cast<int64_t>(values.size())}, tg::kFloat, kDevice);
    float* data = t.data_ptr<float>();
    for (float v : values) *data++ = v;
    return t;
  }

  HostMemoryAllocator allocator;
  LoggingStreams streams;
  tg::Library library;
};

bool runs_here() {
  // A CUDA build registers its own DeviceGuardImpl (and kernels) for CUDA.
  return tg::device_guard_impl(tg::kCUDA) == nullptr;
}
}  // namespace

TEST_CASE("autograd streams: a node runs on its forward's stream, and the caller waits for the leaves") {
  if (!runs_here()) return;
  SimulatedDevice device;
  tg::Tensor x = device.tensor({1, 2, 3}).requires_grad_();
  tg::Stream::Id stream_seen_by_hook = -1;
  tg::Tensor loss;
  {
    const tg::OptionalStreamGuard forward_stream(tg::Stream(kDevice, 1));
    tg::Tensor y = x * 2.0;
    y.register_hook([&](const tg::Tensor&) {
      stream_seen_by_hook = device.streams.current;
      return tg::Tensor();
    });
    loss = y.sum();
  }
  CHECK(device.streams.current == 0);
  device.streams.log.clear();
  loss.backward(device.tensor({1}).reshape({}));

  CHECK(stream_seen_by_hook == 1);  // MulBackward0 ran on stream 1
  CHECK(device.streams.current == 0);
  CHECK(x.grad().data_ptr<float>()[2] == 2.0f);
  // The root gradient, made on stream 0, reaches SumBackward0 on stream 1: its memory is
  // recorded there and stream 1 waits for an event on stream 0. Nothing else crosses
  // streams until the end, when the caller's stream 0 waits for the leaf's stream 1.
  const std::vector<std::string> expected = {"memory on s1", "record e1 on s0", "s1 waits e1", "memory on s1",
                                             "record e2 on s1", "s0 waits e2"};
  CHECK(device.streams.log == expected);
}

TEST_CASE("autograd streams: gradients from two streams accumulate after both are ready") {
  if (!runs_here()) return;
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

  CHECK(x.grad().data_ptr<float>()[0] == 5.0f);
  CHECK(x.grad().data_ptr<float>()[1] == 5.0f);
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
