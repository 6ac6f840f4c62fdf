// Tests for the backward engine, with hand-written nodes: dependency counting, ordering by
// sequence_nr, InputBuffer accumulation, AccumulateGrad, retain_graph and create_graph,
// autograd::grad (captures, pruning, unused inputs), validate_outputs, SavedVariable's
// checks, errors from nodes, and two threads running backward passes at once.
#include <doctest/doctest.h>

#include <thread>

#include "autograd/accumulate_grad.h"
#include "autograd/engine.h"
#include "autograd/functions.h"
#include "autograd/input_buffer.h"
#include "nn/set_data.h"
#include "autograd_test_helpers.h"

using namespace autograd_test;
using tg::autograd::AccumulateGrad;
using tg::autograd::InputBuffer;

TEST_CASE("autograd: a chain of nodes carries the gradient to the leaf") {
  Tensor x = leaf({1, 2});
  auto first = std::make_shared<ScaleNode>("First", 2.f, edge_list{impl::gradient_edge(x)});
  Tensor y = output_of(first, {0, 0});
  auto second = std::make_shared<ScaleNode>("Second", 3.f, edge_list{impl::gradient_edge(y)});
  Tensor z = output_of(second, {0, 0});

  CHECK(x.is_leaf());
  CHECK_FALSE(z.is_leaf());
  CHECK(z.requires_grad());
  CHECK(z.grad_fn()->name() == "Second");
  CHECK(y.output_nr() == 0);
  CHECK(x.grad_fn() == nullptr);
  CHECK(impl::gradient_edge(x).function->name() == "AccumulateGrad");
  // The leaf's accumulator is made once and shared.
  CHECK(impl::grad_accumulator(x) == impl::gradient_edge(x).function);

  z.backward(floats({1, 10}));
  CHECK(values(x.grad()) == std::vector<float>{6, 60});
  CHECK(first->runs == 1);
  CHECK(second->runs == 1);
  CHECK_FALSE(y.grad().defined());  // a non-leaf keeps no gradient unless it retains it
}

// See Note [The leaf holds its AccumulateGrad] in docs/autograd.md.
TEST_CASE("autograd: a leaf keeps its AccumulateGrad from one graph to the next and frees it with itself") {
  Tensor x = leaf({1, 2});
  std::weak_ptr<Node> accumulator;
  {
    Tensor y = tg::mul(x, 2.0);
    accumulator = y.grad_fn()->next_edge(0).function;
  }
  // The graph is gone; the leaf still holds its node, and the next graph reaches the same one.
  REQUIRE_FALSE(accumulator.expired());
  Tensor z = tg::mul(x, 3.0);
  CHECK(z.grad_fn()->next_edge(0).function == accumulator.lock());
  tg::sum(z).backward();
  CHECK(values(x.grad()) == std::vector<float>{3, 3});
  // The node holds the leaf only weakly: no cycle keeps either alive.
  z = Tensor();
  x = Tensor();
  CHECK(accumulator.expired());
}

TEST_CASE("autograd: threads recording a fresh leaf at once all reach its one AccumulateGrad") {
  // The accumulator slot's spin lock: the first of the threads makes the node, the others
  // get it, and the graphs they drop never take it from the leaf.
  Tensor x = leaf({1, 2});
  constexpr int kThreads = 4;
  std::vector<std::shared_ptr<Node>> first_seen(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&x, &first_seen, i] {
      for (int step = 0; step < 2000; ++step) {
        const Tensor y = tg::mul(x, 2.0);
        if (step == 0) first_seen[i] = y.grad_fn()->next_edge(0).function;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const std::shared_ptr<Node> accumulator = impl::grad_accumulator(x);
  for (const std::shared_ptr<Node>& node : first_seen) CHECK(node == accumulator);
}

TEST_CASE("autograd: a graph that outlives its leaf still runs the leaf's hooks") {
  // PyTorch's node keeps the leaf alive, so the leaf's hooks still see the gradient; here the
  // leaf hands its hooks to the node as it is freed. The gradient itself has nobody to see it.
  Tensor x = leaf({1, 2});
  std::vector<float> seen;
  x.register_hook([&seen](const Tensor& grad) { seen = values(grad); });
  Tensor y = tg::mul(x, 3.0);
  const std::shared_ptr<Node> node = y.grad_fn()->next_edge(0).function;
  const auto* accumulator = dynamic_cast<const AccumulateGrad*>(node.get());
  REQUIRE(accumulator != nullptr);
  CHECK(accumulator->variable().is_same(x));
  x = Tensor();
  CHECK_FALSE(accumulator->variable().defined());
  tg::sum(y).backward();
  CHECK(seen == std::vector<float>{3, 3});
}

TEST_CASE("autograd: a leaf's AccumulateGrad is made again when the leaf changed while no graph held it") {
  // As PyTorch makes a new node whenever no graph holds the old one: here only when what the
  // old one recorded (shape, dtype, device, stream) no longer holds.
  Tensor x = leaf({1, 2});
  const std::weak_ptr<Node> before = impl::grad_accumulator(x);
  REQUIRE_FALSE(before.expired());
  tg::nn::detail::set_data(x, tg::ones({3}));  // the same dtype, another shape
  const std::shared_ptr<Node> after = impl::grad_accumulator(x);
  CHECK(before.expired());
  CHECK(after->input_metadata(0).sizes.ref() == tg::IntArrayRef({3}));
  tg::sum(tg::mul(x, 2.0)).backward();
  CHECK(values(x.grad()) == std::vector<float>{2, 2, 2});
}

TEST_CASE("autograd: after set_data changes a leaf's dtype, graphs recorded before still reach the leaf") {
  Tensor x = leaf({1, 2});
  Tensor y = tg::mul(x, 2.0);
  const std::shared_ptr<Node> old_node = y.grad_fn()->next_edge(0).function;
  tg::nn::detail::set_data(x, tg::ones({2}, tg::kDouble));
  // The next graph gets a node for the new dtype; the old graph's node now holds the leaf.
  const std::shared_ptr<Node> new_node = impl::grad_accumulator(x);
  CHECK(new_node != old_node);
  CHECK(new_node->input_metadata(0).dtype == tg::kDouble);
  const tg::TensorImpl* leaf_impl = x.unsafeGetTensorImpl();
  x = Tensor();
  const Tensor held = dynamic_cast<const AccumulateGrad&>(*old_node).variable();
  CHECK(held.unsafeGetTensorImpl() == leaf_impl);
}

TEST_CASE("autograd: freeing a long chain of nodes does not recurse, and shared nodes survive it") {
  // A million nodes, each the only owner of the next: freed one by one through ~Node's stack,
  // where recursion would overflow the call stack. The leaf's accumulator, held from outside,
  // and a node shared with another chain outlive the chain.
  Tensor x = leaf({1});
  std::shared_ptr<Node> accumulator = impl::gradient_edge(x).function;
  auto shared = std::make_shared<ScaleNode>("Shared", 1.f, edge_list{Edge(accumulator, 0)});
  std::shared_ptr<Node> head = std::make_shared<ScaleNode>("Link", 1.f, edge_list{Edge(shared, 0)});
  for (int i = 0; i < 1000000; ++i) head = std::make_shared<ScaleNode>("Link", 1.f, edge_list{Edge(head, 0)});
  const std::weak_ptr<Node> first_link = head;
  head.reset();
  CHECK(first_link.expired());
  CHECK(shared.use_count() == 1);
  CHECK(accumulator.use_count() == 3);  // the local, `shared`'s edge and the leaf x
}

TEST_CASE("autograd: a node runs once, after all its producers (diamond)") {
  Tensor x = leaf({1});
  auto bottom = std::make_shared<ScaleNode>("Bottom", 1.f, edge_list{impl::gradient_edge(x)});
  Tensor a = output_of(bottom, {0});
  auto left = std::make_shared<ScaleNode>("Left", 2.f, edge_list{impl::gradient_edge(a)});
  auto right = std::make_shared<ScaleNode>("Right", 3.f, edge_list{impl::gradient_edge(a)});
  Tensor l = output_of(left, {0});
  Tensor r = output_of(right, {0});
  auto top = std::make_shared<ScaleNode>("Top", 1.f, edge_list{impl::gradient_edge(l), impl::gradient_edge(r)});
  Tensor out = output_of(top, {0});

  out.backward(floats({1}));
  CHECK(bottom->runs == 1);
  CHECK(bottom->received == std::vector<float>{5});  // 2 + 3 summed by its InputBuffer
  CHECK(values(x.grad()) == std::vector<float>{5});
}

TEST_CASE("autograd: two outputs of one node fill two slots of its buffer") {
  Tensor x = leaf({1, 1});
  std::vector<float> seen;
  auto split = std::make_shared<LambdaNode>("Split", edge_list{impl::gradient_edge(x)}, [&](variable_list& grads) {
    REQUIRE(grads.size() == 2);
    std::vector<float> g0 = values(grads[0]), g1 = values(grads[1]);
    seen = {g0[0], g1[0]};
    return variable_list{floats({g0[0], g1[0]})};
  });
  Tensor first = output_of(split, {0});
  Tensor second = output_of(split, {0});
  CHECK(second.output_nr() == 1);
  CHECK(split->num_inputs() == 2);
  tg::autograd::backward({first, second}, {floats({3}), floats({4})});
  CHECK(seen == std::vector<float>{3, 4});
  CHECK(values(x.grad()) == std::vector<float>{3, 4});
}

TEST_CASE("autograd: ready nodes run highest sequence_nr first") {
  std::vector<std::string> trace;
  Tensor x = leaf({1});
  auto made_first = std::make_shared<ScaleNode>("MadeFirst", 1.f, edge_list{impl::gradient_edge(x)}, &trace);
  auto made_second = std::make_shared<ScaleNode>("MadeSecond", 1.f, edge_list{impl::gradient_edge(x)}, &trace);
  CHECK(made_second->sequence_nr() > made_first->sequence_nr());
  Tensor a = output_of(made_first, {0});
  Tensor b = output_of(made_second, {0});
  // The root hands both their gradient at once; the one made later runs first.
  tg::autograd::backward({a, b}, {floats({1}), floats({1})});
  CHECK(trace == std::vector<std::string>{"MadeSecond", "MadeFirst"});
  CHECK(values(x.grad()) == std::vector<float>{2});

  // A node made later still waits for its producers: dependencies come before order.
  trace.clear();
  x.mutable_grad().reset();
  auto feeder = std::make_shared<ScaleNode>("Feeder", 1.f, edge_list{}, &trace);
  Tensor d = output_of(feeder, {0});
  auto late = std::make_shared<ScaleNode>("Late", 1.f, edge_list{impl::gradient_edge(x)}, &trace);
  Tensor c = output_of(late, {0});
  feeder->set_next_edges({impl::gradient_edge(c)});
  CHECK(late->sequence_nr() > feeder->sequence_nr());
  tg::autograd::backward({d, c}, {floats({1}), floats({1})});
  CHECK(trace == std::vector<std::string>{"Feeder", "Late"});
  CHECK(late->runs == 1);
  CHECK(values(x.grad()) == std::vector<float>{2});
}

TEST_CASE("autograd: .grad() accumulates across backward calls") {
  Tensor x = leaf({1, 2});
  auto node = std::make_shared<ScaleNode>("Twice", 2.f, edge_list{impl::gradient_edge(x)});
  Tensor y = output_of(node, {0, 0});
  y.backward(floats({1, 1}), /*retain_graph=*/true);
  CHECK(values(x.grad()) == std::vector<float>{2, 2});
  Tensor first_grad = x.grad();
  y.backward(floats({1, 1}));
  CHECK(values(x.grad()) == std::vector<float>{4, 4});
  // Accumulated in place without create_graph: the same tensor.
  CHECK(x.grad().is_same(first_grad));
}

TEST_CASE("autograd: AccumulateGrad steals a gradient nobody else holds, else copies it") {
  Tensor x = leaf({1, 2});
  auto node = std::make_shared<ScaleNode>("Fresh", 1.f, edge_list{impl::gradient_edge(x)});
  Tensor y = output_of(node, {0, 0});
  y.backward(floats({1, 1}), true);
  CHECK(x.grad().data_ptr() == node->returned_data);

  x.mutable_grad().reset();
  node->keep_returned = true;  // the node keeps a reference: stealing would alias it
  y.backward(floats({1, 1}), true);
  CHECK(x.grad().data_ptr() != node->returned_data);
  CHECK(values(x.grad()) == std::vector<float>{1, 1});

  // A gradient the user passes in is never stolen.
  x.mutable_grad().reset();
  Tensor grad = floats({5, 6});
  tg::autograd::backward({x}, {grad});
  CHECK(values(x.grad()) == std::vector<float>{5, 6});
  CHECK(x.grad().data_ptr() != grad.data_ptr());
}

TEST_CASE("autograd: InputBuffer adds in place only into a tensor it alone holds") {
  tg::NoGradGuard no_grad;  // as in the engine without create_graph
  InputBuffer buffer(1);
  Tensor held = floats({1, 2});
  buffer.add(0, Tensor(held), std::nullopt, std::nullopt);
  buffer.add(0, floats({10, 20}), std::nullopt, std::nullopt);
  CHECK(values(held) == std::vector<float>{1, 2});  // someone else holds it: out of place
  CHECK(values(buffer[0]) == std::vector<float>{11, 22});

  const void* sum_data = buffer[0].data_ptr();
  buffer.add(0, floats({100, 200}), std::nullopt, std::nullopt);
  CHECK(buffer[0].data_ptr() == sum_data);  // the buffer's own tensor: in place
  CHECK(values(buffer[0]) == std::vector<float>{111, 222});

  {
    tg::AutoGradMode grad_mode(true);  // recording: never in place
    buffer.add(0, floats({1, 1}), std::nullopt, std::nullopt);
    CHECK(buffer[0].data_ptr() != sum_data);
  }
  buffer.add(3, floats({7}), std::nullopt, std::nullopt);  // grows for nodes without metadata
  CHECK(buffer.size() == 4);
  buffer.add(1, Tensor(), std::nullopt, std::nullopt);  // undefined: nothing arrives
  CHECK_FALSE(buffer[1].defined());
}

TEST_CASE("autograd: retain_graph keeps saved tensors for a second backward") {
  Tensor x = leaf({1, 2});
  auto node = std::make_shared<SavingNode>("SaveBackward", edge_list{impl::gradient_edge(x)});
  node->saved = tg::autograd::SavedVariable(x, false);
  Tensor y = output_of(node, {0, 0});

  y.backward(floats({1, 1}), /*retain_graph=*/true);
  y.backward(floats({1, 1}), /*retain_graph=*/true);
  CHECK(values(x.grad()) == std::vector<float>{2, 2});
  y.backward(floats({1, 1}));  // releases the saved tensor
  CHECK(error_of([&] { y.backward(floats({1, 1})); }) ==
        "Trying to backward through the graph a second time (or directly access saved tensors after they have "
        "already been freed). Specify retain_graph=true if you need to backward through the graph a second time.");
  CHECK(values(x.grad()) == std::vector<float>{3, 3});
}

TEST_CASE("autograd: grad mode is on inside nodes only with create_graph") {
  Tensor x = leaf({1});
  auto node = std::make_shared<ScaleNode>("Mode", 1.f, edge_list{impl::gradient_edge(x)});
  Tensor y = output_of(node, {0});
  y.backward(floats({1}), true);
  CHECK_FALSE(node->grad_mode_seen);
  y.backward(floats({1}), std::nullopt, /*create_graph=*/true);
  CHECK(node->grad_mode_seen);
  CHECK(tg::GradMode::is_enabled());  // restored afterwards
  {
    tg::NoGradGuard no_grad;
    y.backward(floats({1}), std::nullopt, true);  // create_graph wins inside the engine
    CHECK(node->grad_mode_seen);
    CHECK_FALSE(tg::GradMode::is_enabled());
  }
}

TEST_CASE("autograd: grad() captures gradients and accumulates nothing") {
  Tensor x = leaf({1, 2});
  Tensor w = leaf({3});
  auto to_x = std::make_shared<ScaleNode>("ToX", 2.f, edge_list{impl::gradient_edge(x)});
  auto to_w = std::make_shared<ScaleNode>("ToW", 5.f, edge_list{impl::gradient_edge(w)});
  Tensor a = output_of(to_x, {0, 0});
  Tensor b = output_of(to_w, {0});
  auto top = std::make_shared<ScaleNode>("Top", 1.f, edge_list{impl::gradient_edge(a)});
  Tensor out = output_of(top, {0, 0});

  variable_list grads = tg::autograd::grad({out}, {x}, {floats({1, 3})});
  REQUIRE(grads.size() == 1);
  CHECK(values(grads[0]) == std::vector<float>{2, 6});
  CHECK_FALSE(x.grad().defined());
  CHECK(to_w->runs == 0);

  // An intermediate tensor: its grad_fn's incoming gradient is captured and the nodes
  // below it do not run.
  const int to_x_runs = to_x->runs;
  grads = tg::autograd::grad({out}, {a}, {floats({1, 1})});
  CHECK(values(grads[0]) == std::vector<float>{1, 1});
  CHECK(to_x->runs == to_x_runs);

  // The unused input.
  Tensor both = output_of(std::make_shared<ScaleNode>("Both", 1.f, edge_list{impl::gradient_edge(a)}), {0, 0});
  CHECK(error_of([&] { tg::autograd::grad({both}, {x, w}, {floats({1, 1})}, true); }) ==
        "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=true if "
        "this is the desired behavior.");
  grads = tg::autograd::grad({both}, {x, w}, {floats({1, 1})}, true, false, /*allow_unused=*/true);
  CHECK(values(grads[0]) == std::vector<float>{2, 2});
  CHECK_FALSE(grads[1].defined());

  CHECK(error_of([&] { tg::autograd::grad({both}, {floats({1})}, {floats({1, 1})}); }) ==
        "One of the differentiated Tensors does not require grad");
}

TEST_CASE("autograd: backward with inputs accumulates into those only") {
  Tensor x = leaf({1});
  Tensor w = leaf({1});
  auto node = std::make_shared<ScaleNode>("Both", 4.f, edge_list{impl::gradient_edge(x), impl::gradient_edge(w)});
  Tensor y = output_of(node, {0});
  std::vector<Tensor> inputs{w};
  y.backward(floats({1}), std::nullopt, false, tg::TensorList(inputs));
  CHECK(values(w.grad()) == std::vector<float>{4});
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("autograd: validate_outputs reduces, casts and rejects gradients") {
  Tensor x = leaf({1, 2, 3});
  auto broadcast = std::make_shared<LambdaNode>("BroadcastBackward", edge_list{impl::gradient_edge(x)},
                                                [](variable_list&) {
                                                  return variable_list{floats({1, 2, 3, 10, 20, 30}, {2, 3})};
                                                });
  Tensor y = output_of(broadcast, {0});
  y.backward(floats({1}));
  CHECK(values(x.grad()) == std::vector<float>{11, 22, 33});

  auto wrong_shape = std::make_shared<LambdaNode>("WrongShapeBackward", edge_list{impl::gradient_edge(x)},
                                                  [](variable_list&) { return variable_list{floats({1, 2, 3, 4})}; });
  Tensor z = output_of(wrong_shape, {0});
  CHECK(error_of([&] { z.backward(floats({1})); }) ==
        "Function WrongShapeBackward returned an invalid gradient at index 0 - got [4] but expected shape "
        "compatible with [3]");

  auto wrong_count = std::make_shared<LambdaNode>("WrongCountBackward", edge_list{impl::gradient_edge(x)},
                                                  [](variable_list&) {
                                                    return variable_list{floats({1, 2, 3}), floats({1, 2, 3})};
                                                  });
  Tensor w = output_of(wrong_count, {0});
  CHECK(error_of([&] { w.backward(floats({1})); }) ==
        "Function WrongCountBackward returned an invalid number of gradients - expected 1, but got 2");

  x.mutable_grad().reset();
  auto as_double = std::make_shared<LambdaNode>("DoubleBackward", edge_list{impl::gradient_edge(x)},
                                                [](variable_list&) {
                                                  return variable_list{floats({1, 2, 3}).to(tg::kDouble)};
                                                });
  Tensor d = output_of(as_double, {0});
  d.backward(floats({1}));
  CHECK(x.grad().scalar_type() == tg::kFloat);
  CHECK(values(x.grad()) == std::vector<float>{1, 2, 3});
}

TEST_CASE("autograd: errors raised in backward reach the caller") {
  Tensor x = leaf({1});
  auto fn = tg::autograd::make_not_implemented_node("foo.Tensor", edge_list{impl::gradient_edge(x)});
  Tensor y = output_of(fn, {0});
  CHECK(fn->name() == "NotImplemented");
  CHECK_THROWS_AS(y.backward(floats({1})), tg::NotImplementedError);
  CHECK(error_of([&] { y.backward(floats({1})); }) == "the derivative for 'foo.Tensor' is not implemented.");
  CHECK_FALSE(x.grad().defined());
  // The engine is usable afterwards.
  auto ok = std::make_shared<ScaleNode>("Ok", 1.f, edge_list{impl::gradient_edge(x)});
  output_of(ok, {0}).backward(floats({1}));
  CHECK(values(x.grad()) == std::vector<float>{1});
}

TEST_CASE("autograd: node pre-hooks and post-hooks see and replace gradients") {
  Tensor x = leaf({1});
  auto node = std::make_shared<ScaleNode>("Hooked", 2.f, edge_list{impl::gradient_edge(x)});
  std::vector<float> post_seen_input;
  node->add_pre_hook([](const variable_list& grads) { return variable_list{scaled(grads[0], 10.f)}; });
  node->add_post_hook([&](const variable_list& grad_inputs, const variable_list& grad_outputs) {
    post_seen_input = values(grad_outputs[0]);
    return variable_list{scaled(grad_inputs[0], 100.f)};
  });
  output_of(node, {0}).backward(floats({1}));
  CHECK(node->received == std::vector<float>{10});
  CHECK(post_seen_input == std::vector<float>{10});
  CHECK(values(x.grad()) == std::vector<float>{2000});
}

TEST_CASE("autograd: SavedVariable reports in-place changes and restores an output's grad_fn") {
  Tensor x = leaf({1, 2, 3});
  auto node = std::make_shared<SavingNode>("MulBackward0", edge_list{impl::gradient_edge(x)});
  Tensor y = output_of(node, {1, 2, 3});
  y.unsafeGetTensorImpl()->bump_version();
  node->saved = tg::autograd::SavedVariable(y, /*is_output=*/true);
  CHECK_FALSE(node->saved.was_default_constructed());

  y.backward(floats({1, 1, 1}), true);
  REQUIRE(node->unpacked.defined());
  CHECK(node->unpacked.grad_fn() == node);  // restored without a reference cycle
  CHECK(node->unpacked.is_alias_of(y));
  node->unpacked.reset();

  y.unsafeGetTensorImpl()->bump_version();  // an in-place change after saving
  CHECK(error_of([&] { y.backward(floats({1, 1, 1})); }) ==
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[CPUFloatType [3]], which is output 0 of MulBackward0, is at version 2; expected version 1 instead.");

  // A leaf has no grad_fn to name.
  tg::autograd::SavedVariable saved_leaf(x, false);
  x.unsafeGetTensorImpl()->bump_version();
  CHECK(error_of([&] { saved_leaf.unpack(); }) ==
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[CPUFloatType [3]] is at version 1; expected version 0 instead.");
  CHECK_FALSE(tg::autograd::SavedVariable().unpack().defined());
}

TEST_CASE("autograd: two threads run backward passes at once, sharing a leaf") {
  constexpr int kPasses = 500;
  Tensor shared = leaf({0, 0});
  auto worker = [&shared](std::vector<float>* own_grad) {
    Tensor own = leaf({0, 0});
    for (int i = 0; i < kPasses; ++i) {
      auto node = std::make_shared<ScaleNode>("Fork", 1.f,
                                              edge_list{impl::gradient_edge(own), impl::gradient_edge(shared)});
      Tensor y = output_of(node, {0, 0});
      y.backward(floats({1, 2}));
    }
    *own_grad = values(own.grad());
  };
  std::vector<float> grad_a, grad_b;
  std::thread a(worker, &grad_a);
  std::thread b(worker, &grad_b);
  a.join();
  b.join();
  CHECK(grad_a == std::vector<float>{kPasses, 2 * kPasses});
  CHECK(grad_b == std::vector<float>{kPasses, 2 * kPasses});
  CHECK(values(shared.grad()) == std::vector<float>{2 * kPasses, 4 * kPasses});
}

TEST_CASE("autograd: the engine checks roots and their gradients") {
  Tensor x = leaf({1, 2});
  auto node = std::make_shared<ScaleNode>("Root", 1.f, edge_list{impl::gradient_edge(x)});
  Tensor y = output_of(node, {0, 0});
  auto& engine = tg::autograd::Engine::get_default_engine();
  CHECK(error_of([&] { engine.execute({impl::gradient_edge(y)}, {}, false, false); }) ==
        "[backward] got 1 roots but 0 gradients");
  CHECK(error_of([&] { engine.execute({impl::gradient_edge(y)}, {floats({1, 2, 3})}, false, false); }) ==
        "invalid gradient at index 0 - got [3] but expected shape compatible with [2]");
  engine.execute({impl::gradient_edge(y)}, {floats({1, 1})}, false, false);
  CHECK(values(x.grad()) == std::vector<float>{1, 1});
}
