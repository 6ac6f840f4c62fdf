// Replay by launches (Note [Replay by launches], runtime/graphs/recording.h): a captured call
// whose kernel did nothing but CPU loop launches replays them alone, with eager's bits; any
// other call replays through its kernel, and is counted with its reason.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "cpu/launch.h"
#include "dispatch/library.h"
#include "dispatch/local_dispatch_key_set.h"
#include "graphs/graph.h"
#include "graphs/recording.h"
#include "jit/tracer.h"
#include "test_helpers.h"

using test_helpers::contains;

namespace {

// Same dtype, shape and bytes (NaNs included).
bool same_bits(const tg::Tensor& a, const tg::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  const tg::Tensor ca = a.contiguous(), cb = b.contiguous();
  return std::memcmp(ca.data_ptr(), cb.data_ptr(), static_cast<size_t>(ca.numel() * ca.element_size())) == 0;
}

std::string kernel_calls(const tg::graphs::Graph& graph) {
  std::string text;
  for (const auto& call : graph.recording().kernel_replayed_calls()) text += call.op + ": " + call.reason + "\n";
  return text;
}

// Counts the operator calls that reach the dispatcher on this thread while it lives (every
// call passes the Tracer key, which it includes, and the jit call interceptor it sets).
class DispatcherCallCounter {
 public:
  DispatcherCallCounter() : previous_(tg::jit::set_call_interceptor(&count)), include_(tg::DispatchKey::Tracer) {
    calls_ = 0;
  }
  ~DispatcherCallCounter() { tg::jit::set_call_interceptor(previous_); }
  static size_t calls() { return calls_; }

 private:
  static void count(const tg::OperatorHandle& op, tg::DispatchKeySet below, tg::Stack* stack) {
    ++calls_;
    tg::ExcludeDispatchKeyGuard no_tracer(tg::DispatchKey::Tracer);
    op.redispatchBoxed(below, stack);
  }
  static inline thread_local size_t calls_ = 0;
  tg::jit::CallInterceptor previous_;
  tg::IncludeDispatchKeyGuard include_;
};

struct Inputs {
  tg::Tensor x;      // [8, 16] float, a transposed view (non-contiguous)
  tg::Tensor bias;   // [16] float, broadcast over rows
  tg::Tensor steps;  // [8, 1] int64: converted on load
  tg::Tensor half;   // [8, 16] float16: converted on load, and a float16 result
  tg::Tensor big;    // [300, 300] float: above the parallel grain, so loops may run threaded
  tg::Tensor low;    // [8, 16] float16: an out= destination of another dtype than the result
};

tg::Tensor small_integers() { return (tg::rand({8, 1}) * 5.0).to(tg::kLong); }

Inputs make_inputs() {
  Inputs in;
  in.x = tg::randn({16, 8}).t();
  in.bias = tg::randn({16});
  in.steps = small_integers();
  in.half = tg::randn({8, 16}).to(tg::kHalf);
  in.big = tg::randn({300, 300});
  in.low = tg::empty({8, 16}, tg::TensorOptions().dtype(tg::kHalf));
  return in;
}

void refill(Inputs& in) {
  in.x.copy_(tg::randn({8, 16}));
  in.bias.copy_(tg::randn({16}));
  in.steps.copy_(small_integers());
  in.half.copy_(tg::randn({8, 16}));
  in.big.copy_(tg::randn({300, 300}));
}

// Pointwise work of every kind the loops take: broadcasting, mixed dtypes, wrapped numbers,
// in-place updates, strided and threaded loops, comparisons, where, reductions.
std::vector<tg::Tensor> pointwise(const Inputs& in) {
  tg::Tensor h = in.x + in.bias;      // strided input, broadcast input
  h = h * in.steps;                   // int64 converted to float on load
  h.add_(in.half);                    // in place, float16 converted on load
  h.mul_(0.5).relu_();                // in place, wrapped number
  tg::Tensor low = in.low;
  tg::sigmoid_out(low, h - 1.0);      // float computed, float16 written: out= copies back (a nested copy_)
  tg::Tensor picked = tg::where(h > 0.25, h, in.x.exp());
  tg::Tensor columns = picked.sum(0);  // a reduction over the outer dim
  tg::Tensor big = (in.big.t() * 1.5 + in.big).tanh();  // threaded above the grain
  tg::Tensor total = big.mean();       // a composite that forwards to mean.dim
  return {h, low, picked, columns, big, total};
}

}  // namespace

TEST_CASE("launch replay: a pointwise region replays by launches only, with eager's bits") {
  tg::manual_seed(0);
  Inputs in = make_inputs();
  pointwise(in);  // warm-up
  tg::graphs::Graph graph;
  graph.capture_begin();
  const std::vector<tg::Tensor> captured = pointwise(in);
  graph.capture_end();
  INFO(kernel_calls(graph));
  CHECK(graph.num_nodes() >= 14);
  CHECK(graph.recording().num_kernel_calls() == 0);
  CHECK(graph.recording().num_launch_calls() == graph.num_nodes());

  for (int step = 0; step < 3; ++step) {
    refill(in);
    graph.replay();
    std::vector<tg::Tensor> replayed;  // copies: eager writes `low` again
    for (const tg::Tensor& t : captured) replayed.push_back(t.clone());
    const std::vector<tg::Tensor> eager = pointwise(in);
    for (size_t i = 0; i < eager.size(); ++i) {
      INFO("output ", i);
      CHECK(same_bits(replayed[i], eager[i]));
    }
  }
}

TEST_CASE("launch replay: makes no dispatcher call and runs no kernel") {
  tg::Tensor x = tg::randn({4, 4}), y = tg::randn({4, 4});
  auto chain = [&] {
    tg::Tensor h = x;
    for (int i = 0; i < 10; ++i) h = (h + y).relu();
    return h;
  };
  chain();
  tg::graphs::Graph graph;
  graph.capture_begin();
  tg::Tensor out = chain();
  graph.capture_end();
  REQUIRE(graph.recording().num_launch_calls() == 20);

  const size_t kernel_calls_before = tg::graphs::detail::replay_kernel_call_count();
  {
    DispatcherCallCounter counter;
    graph.replay();
    CHECK(DispatcherCallCounter::calls() == 0);
    tg::Tensor seen = x + y;  // the counter does see calls
    CHECK(DispatcherCallCounter::calls() == 1);
  }
  CHECK(tg::graphs::detail::replay_kernel_call_count() == kernel_calls_before);
  CHECK(same_bits(out, chain()));

  // A graph with a call that cannot replay by launches: the hook sees its kernel run.
  tg::graphs::Graph with_softmax;
  with_softmax.capture_begin();
  tg::Tensor probabilities = tg::softmax(chain(), 1);
  with_softmax.capture_end();
  with_softmax.replay();
  CHECK(tg::graphs::detail::replay_kernel_call_count() == kernel_calls_before + 1);
  CHECK(same_bits(probabilities, tg::softmax(chain(), 1)));
}

// conv2d at stride 1 on the CPU runs its products in one launch (Note [Kernel-shift
// convolution]) called from a composite operator's kernel: however the recorder replays it, a
// replay with new input values gives eager's bits.
TEST_CASE("launch replay: a stride-1 conv2d replays with new input values") {
  tg::manual_seed(2);
  tg::Tensor x = tg::randn({2, 16, 9, 7}), w = tg::randn({8, 16, 3, 3});
  auto region = [&] { return tg::conv2d(x, w, {}, {1, 1}, {1, 1}); };
  region();  // warm-up
  tg::graphs::Graph graph;
  graph.capture_begin();
  tg::Tensor out = region();
  graph.capture_end();
  INFO(kernel_calls(graph));
  for (int step = 0; step < 2; ++step) {
    x.copy_(tg::randn({2, 16, 9, 7}));
    graph.replay();
    const tg::Tensor replayed = out.clone();
    CHECK(same_bits(replayed, region()));
  }
}

TEST_CASE("launch replay: a call that is not launches alone replays through its kernel, counted") {
  tg::manual_seed(1);
  tg::Tensor x = tg::randn({6, 5}), w = tg::randn({5, 6});
  tg::Tensor grid = tg::randn({6, 6});
  auto region = [&] {
    tg::Tensor p = tg::mm(x, w);  // a BLAS call as one launch
    grid.t().add_(p);             // in place on a transposed tensor: the wrapper's copy-back is launches too
    return tg::softmax(p, 1);     // its kernel does not declare LaunchesOnly
  };
  region();
  tg::graphs::Graph graph;
  graph.capture_begin();
  tg::Tensor out = region();
  graph.capture_end();
  const std::vector<tg::graphs::KernelReplayedCall> kernel = graph.recording().kernel_replayed_calls();
  INFO(kernel_calls(graph));
  REQUIRE(kernel.size() == 1);
  CHECK(graph.recording().num_kernel_calls() == 1);
  CHECK(graph.recording().num_launch_calls() == graph.num_nodes() - 1);
  CHECK(kernel[0].op == "tg::_softmax.out");
  CHECK(contains(kernel[0].reason, "does not declare cpu::LaunchesOnly"));

  tg::Tensor grid_before = grid.clone();
  x.copy_(tg::randn({6, 5}));
  graph.replay();
  tg::Tensor expected_grid = grid_before.clone();
  expected_grid.t().add_(tg::mm(x, w));
  CHECK(same_bits(grid, expected_grid));
  CHECK(same_bits(out, tg::softmax(tg::mm(x, w), 1)));
}

TEST_CASE("launch replay: an in-place call on an outside tensor bumps its version, as its kernel does") {
  tg::Tensor w = tg::randn({3, 3});
  tg::graphs::Graph graph;
  graph.capture_begin();
  w.mul_(0.5);
  graph.capture_end();
  REQUIRE(graph.recording().num_launch_calls() == 1);
  const auto version = w.unsafeGetTensorImpl()->version();
  tg::Tensor before = w.clone();
  graph.replay();
  CHECK(w.unsafeGetTensorImpl()->version() == version + 1);
  CHECK(same_bits(w, before * 0.5));
}

namespace {

// Kernels of test operators, one per rule of Note [Replay by launches].
tg::Tensor doubled_through_add(const tg::Tensor& x) {  // declared; its nested add is declared
  tg::cpu::LaunchesOnly launches_only;
  return tg::add(x, x);
}
tg::Tensor softmax_inside(const tg::Tensor& x) {  // declared, but its nested _softmax is not
  tg::cpu::LaunchesOnly launches_only;
  return tg::softmax(x, 1);
}
tg::Tensor scaled_by_first(const tg::Tensor& x) {  // declared, but it decides on a value
  tg::cpu::LaunchesOnly launches_only;
  return tg::mul(x, x.select(0, 0).select(0, 0).item<float>());
}
tg::Tensor negated_by_hand(const tg::Tensor& x) {  // not declared: a loop of its own
  tg::Tensor out = tg::make_empty_tensor(x.sizes(), tg::kFloat, x.device());
  const tg::Tensor in = x.contiguous();
  for (int64_t i = 0; i < x.numel(); ++i) out.data_ptr<float>()[i] = -in.data_ptr<float>()[i];
  return out;
}

}  // namespace

TEST_CASE("launch replay: the recorder replays by launches only what it can prove, and says why not") {
  tg::Library lib(tg::Library::Kind::Fragment, "test_launch_replay");
  const char* names[] = {"doubled", "normalized", "scaled", "negated"};
  for (const char* name : names) lib.def(std::string(name) + "(Tensor x) -> Tensor");
  lib.impl("doubled", tg::DispatchKey::CPU, &doubled_through_add);
  lib.impl("normalized", tg::DispatchKey::CPU, &softmax_inside);
  lib.impl("scaled", tg::DispatchKey::CPU, &scaled_by_first);
  lib.impl("negated", tg::DispatchKey::CPU, &negated_by_hand);
  auto op = [](const char* name) {
    return tg::Dispatcher::singleton()
        .findSchemaOrThrow(std::string("test_launch_replay::") + name)
        .typed<tg::Tensor(const tg::Tensor&)>();
  };

  tg::Tensor x = tg::randn({3, 3});
  auto region = [&] {
    std::vector<tg::Tensor> out;
    for (const char* name : names) out.push_back(op(name).call(x));
    return out;
  };
  region();
  tg::graphs::Graph graph;
  graph.capture_begin();
  const std::vector<tg::Tensor> captured = region();
  graph.capture_end();
  const std::vector<tg::graphs::KernelReplayedCall> kernel = graph.recording().kernel_replayed_calls();
  INFO(kernel_calls(graph));
  REQUIRE(graph.num_nodes() == 4);
  CHECK(graph.recording().num_launch_calls() == 1);  // doubled
  REQUIRE(kernel.size() == 3);
  CHECK(kernel[0].op == "test_launch_replay::normalized");
  CHECK(contains(kernel[0].reason, "calls tg::_softmax, whose kernel does not declare cpu::LaunchesOnly"));
  CHECK(kernel[1].op == "test_launch_replay::scaled");
  CHECK(contains(kernel[1].reason, "reads tensor data (item())"));
  CHECK(kernel[2].op == "test_launch_replay::negated");
  CHECK(contains(kernel[2].reason, "does not declare cpu::LaunchesOnly"));

  x.copy_(tg::randn({3, 3}));
  graph.replay();
  const std::vector<tg::Tensor> eager = region();
  for (size_t i = 0; i < eager.size(); ++i) {
    INFO(names[i]);
    CHECK(same_bits(captured[i], eager[i]));
  }
}
