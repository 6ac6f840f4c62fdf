// Tests for the user-facing autograd API and the helpers generated kernels call: grad mode
// guards, requires_grad_ and the Autograd key, detach, tensor hooks, retain_grad, backward's
// argument checks, check_inplace and friends, set_history, sum_to, and in-place on views
// (CopySlices and the regenerated view grad_fn), with hand-written nodes; then a few checks
// through real operators on tensors that do not require grad.
#include <doctest/doctest.h>

#include <thread>

#include "autograd/engine.h"
#include "autograd/functions.h"
#include "autograd_test_helpers.h"

using namespace autograd_test;

TEST_CASE("autograd: NoGradGuard and AutoGradMode nest and restore") {
  CHECK(tg::GradMode::is_enabled());
  {
    tg::NoGradGuard no_grad;
    CHECK_FALSE(tg::GradMode::is_enabled());
    {
      tg::AutoGradMode enable(true);
      CHECK(tg::GradMode::is_enabled());
      {
        tg::NoGradGuard inner;
        CHECK_FALSE(tg::GradMode::is_enabled());
      }
      CHECK(tg::GradMode::is_enabled());
    }
    CHECK_FALSE(tg::GradMode::is_enabled());
  }
  CHECK(tg::GradMode::is_enabled());
  // Per thread: another thread starts enabled whatever this one does.
  tg::NoGradGuard no_grad;
  bool other_thread_enabled = false;
  std::thread([&] { other_thread_enabled = tg::GradMode::is_enabled(); }).join();
  CHECK(other_thread_enabled);
}

TEST_CASE("autograd: requires_grad_ checks dtype and leafness and sets the Autograd key") {
  Tensor x = floats({1, 2});
  CHECK_FALSE(x.requires_grad());
  CHECK_FALSE(x.key_set().has(tg::DispatchKey::Autograd));
  CHECK(x.requires_grad_().is_same(x));
  CHECK(x.requires_grad());
  CHECK(x.is_leaf());
  CHECK(x.key_set().has(tg::DispatchKey::Autograd));
  x.set_requires_grad(false);
  CHECK_FALSE(x.requires_grad());
  CHECK_FALSE(x.key_set().has(tg::DispatchKey::Autograd));

  Tensor ints = tg::make_empty_tensor({2}, tg::kLong, tg::Device(tg::kCPU));
  CHECK(error_of([&] { ints.requires_grad_(); }) == "only Tensors of floating point dtype can require gradients");
  ints.requires_grad_(false);  // allowed: nothing changes

  Tensor a = leaf({1});
  Tensor y = output_of(std::make_shared<ScaleNode>("Op", 1.f, edge_list{impl::gradient_edge(a)}), {0});
  CHECK(y.key_set().has(tg::DispatchKey::Autograd));  // set_history gives outputs the key
  CHECK(error_of([&] { y.requires_grad_(false); }) ==
        "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
        "subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  y.requires_grad_(true);  // a no-op on a non-leaf
  CHECK(y.requires_grad());
}

TEST_CASE("autograd: detach shares storage and version but not history") {
  Tensor x = leaf({1, 2});
  Tensor y = output_of(std::make_shared<ScaleNode>("Op", 1.f, edge_list{impl::gradient_edge(x)}), {3, 4});
  Tensor d = y.detach();
  CHECK(d.is_alias_of(y));
  CHECK(d.data_ptr() == y.data_ptr());
  CHECK_FALSE(d.requires_grad());
  CHECK(d.is_leaf());
  CHECK_FALSE(d.key_set().has(tg::DispatchKey::Autograd));
  CHECK(d.key_set().has(tg::DispatchKey::CPU));
  const uint32_t version = y._version();
  d.unsafeGetTensorImpl()->bump_version();
  CHECK(y._version() == version + 1);

  y.detach_();
  CHECK(y.is_leaf());
  CHECK_FALSE(y.requires_grad());
  CHECK_FALSE(y.key_set().has(tg::DispatchKey::Autograd));
  CHECK(values(y) == std::vector<float>{3, 4});
}

TEST_CASE("autograd: leaf hooks run in order, may replace the gradient, and can be removed") {
  Tensor x = leaf({1, 2});
  std::vector<std::string> trace;
  std::vector<float> seen_by_second;
  x.register_hook([&](const Tensor&) { trace.push_back("observer"); });
  const unsigned doubler = x.register_hook([&](const Tensor& g) {
    trace.push_back("doubler");
    return scaled(g, 2.f);
  });
  x.register_hook([&](const Tensor& g) {
    trace.push_back("second");
    seen_by_second = values(g);
    return Tensor();  // keep the gradient
  });
  auto node = std::make_shared<ScaleNode>("Op", 1.f, edge_list{impl::gradient_edge(x)});
  Tensor y = output_of(node, {0, 0});
  y.backward(floats({1, 3}), true);
  CHECK(trace == std::vector<std::string>{"observer", "doubler", "second"});
  CHECK(seen_by_second == std::vector<float>{2, 6});
  CHECK(values(x.grad()) == std::vector<float>{2, 6});

  x.remove_hook(doubler);
  trace.clear();
  x.mutable_grad().reset();
  y.backward(floats({1, 3}));
  CHECK(trace == std::vector<std::string>{"observer", "second"});
  CHECK(values(x.grad()) == std::vector<float>{1, 3});
  CHECK(error_of([&] { x.remove_hook(doubler); }).rfind("[remove_hook] no hook with id", 0) == 0);

  CHECK(error_of([&] { floats({1}).register_hook([](const Tensor& g) { return g; }); }) ==
        "cannot register a hook on a tensor that doesn't require gradient");
  CHECK(error_of([&] {
          x.register_hook([](const Tensor&) { return floats({1, 2, 3}); });
          output_of(std::make_shared<ScaleNode>("Op", 1.f, edge_list{impl::gradient_edge(x)}), {0, 0})
              .backward(floats({1, 1}));
        }) == "[register_hook] hook 3 changed the shape of the gradient from [2] to [3]");
}

TEST_CASE("autograd: a non-leaf's hooks run on its grad_fn, also for autograd::grad") {
  Tensor x = leaf({1});
  auto bottom = std::make_shared<ScaleNode>("Bottom", 1.f, edge_list{impl::gradient_edge(x)});
  Tensor mid = output_of(bottom, {0});
  std::vector<float> seen;
  mid.register_hook([&](const Tensor& g) {
    seen = values(g);
    return scaled(g, 10.f);
  });
  auto top = std::make_shared<ScaleNode>("Top", 3.f, edge_list{impl::gradient_edge(mid)});
  Tensor out = output_of(top, {0});
  out.backward(floats({1}), true);
  CHECK(seen == std::vector<float>{3});
  CHECK(values(x.grad()) == std::vector<float>{30});

  variable_list grads = tg::autograd::grad({out}, {mid}, {floats({1})});
  CHECK(values(grads[0]) == std::vector<float>{30});
  grads = tg::autograd::grad({out}, {x}, {floats({1})});
  CHECK(values(grads[0]) == std::vector<float>{30});
}

TEST_CASE("autograd: retain_grad keeps a non-leaf's gradient") {
  Tensor x = leaf({1, 2});
  auto bottom = std::make_shared<ScaleNode>("Bottom", 2.f, edge_list{impl::gradient_edge(x)});
  Tensor mid = output_of(bottom, {0, 0});
  auto top = std::make_shared<ScaleNode>("Top", 3.f, edge_list{impl::gradient_edge(mid)});
  Tensor out = output_of(top, {0, 0});
  CHECK_FALSE(mid.retains_grad());
  mid.retain_grad();
  mid.retain_grad();  // once is enough
  CHECK(mid.retains_grad());
  x.retain_grad();  // a leaf: nothing to do
  CHECK_FALSE(x.retains_grad());
  out.backward(floats({1, 1}), true);
  CHECK(values(mid.grad()) == std::vector<float>{3, 3});
  out.backward(floats({1, 1}));
  CHECK(values(mid.grad()) == std::vector<float>{6, 6});
  CHECK(values(x.grad()) == std::vector<float>{12, 12});
  CHECK(error_of([] { floats({1}).retain_grad(); }) == "can't retain_grad on Tensor that has requires_grad=False");

  // The hook outlives the tensor harmlessly.
  Tensor y = leaf({1});
  auto node = std::make_shared<ScaleNode>("Node", 1.f, edge_list{impl::gradient_edge(y)});
  Tensor temp = output_of(node, {0});
  temp.retain_grad();
  Edge edge = impl::gradient_edge(temp);
  temp.reset();
  tg::autograd::Engine::get_default_engine().execute({edge}, {floats({1})}, false, false);
  CHECK(values(y.grad()) == std::vector<float>{1});
}

TEST_CASE("autograd: backward checks its tensors and gradients") {
  Tensor x = leaf({1, 2});
  Tensor y = output_of(std::make_shared<ScaleNode>("Op", 1.f, edge_list{impl::gradient_edge(x)}), {0, 0});
  CHECK(error_of([&] { y.backward(); }) == "grad can be implicitly created only for scalar outputs");
  CHECK(error_of([&] { floats({1}).backward(); }) ==
        "element 0 of tensors does not require grad and does not have a grad_fn");
  CHECK(error_of([&] { y.backward(floats({1, 2, 3})); }) ==
        "Mismatch in shape: grad_output[0] has a shape of [3] and output[0] has a shape of [2].");
  CHECK(error_of([&] { tg::autograd::backward({y}, {floats({1, 1}), floats({1, 1})}); }) ==
        "got 1 tensors and 2 gradients");
  std::vector<Tensor> none;
  CHECK(error_of([&] { y.backward(floats({1, 1}), std::nullopt, false, tg::TensorList(none)); }) ==
        "'inputs' argument to backward() cannot be empty.");
  // A leaf is its own root.
  x.backward(floats({5, 6}));
  CHECK(values(x.grad()) == std::vector<float>{5, 6});
}

TEST_CASE("autograd: check_inplace and the out= check raise PyTorch's errors") {
  using tg::autograd::check_inplace;
  Tensor x = leaf({1});
  CHECK(error_of([&] { check_inplace("mul_.Tensor", x, true); }) ==
        "a leaf Variable that requires grad is being used in an in-place operation.");
  {
    tg::NoGradGuard no_grad;
    check_inplace("mul_.Tensor", x, tg::autograd::compute_requires_grad(x));  // not recording: allowed
  }
  Tensor y = output_of(std::make_shared<ScaleNode>("Op", 1.f, edge_list{impl::gradient_edge(x)}), {0});
  check_inplace("mul_.Tensor", y, true);  // a non-leaf may be modified

  // A view of a leaf that requires grad.
  Tensor v = impl::alias_without_history(x);
  tg::autograd::set_history(v, std::make_shared<ScaleNode>("ViewBackward", 1.f, edge_list{impl::gradient_edge(x)}));
  impl::set_view_of(v, x);
  CHECK(v.is_view());
  CHECK(v._base().is_same(x));
  CHECK(error_of([&] { check_inplace("mul_.Tensor", v, true); }) ==
        "a view of a leaf Variable that requires grad is being used in an in-place operation.");

  // A view made in no-grad mode, modified in grad mode.
  Tensor w = impl::alias_without_history(y);
  {
    tg::NoGradGuard no_grad;
    impl::set_view_of(w, y);
  }
  CHECK_FALSE(w.requires_grad());
  CHECK(error_of([&] { check_inplace("mul_.Tensor", w, true); })
            .rfind("A view was created in no_grad mode and is being modified inplace with grad mode enabled.", 0) == 0);
  CHECK(error_of([&] { floats({1})._base(); }) == "Can't get base of non-view Tensor");

  CHECK(error_of([] { tg::autograd::check_no_requires_grad_for_out("add.out", true); }) ==
        "add(): functions with out=... arguments don't support automatic differentiation, but one of the "
        "arguments requires grad.");
  tg::autograd::check_no_requires_grad_for_out("add.out", false);
}

TEST_CASE("autograd: set_history gives floating outputs history and keeps positions") {
  Tensor x = leaf({1});
  auto node = std::make_shared<ScaleNode>("Multi", 1.f, edge_list{impl::gradient_edge(x)});
  Tensor values_out = floats({0});
  Tensor indices = tg::make_empty_tensor({1}, tg::kLong, tg::Device(tg::kCPU));
  tg::autograd::set_history(std::vector<Tensor>{values_out, indices}, node);
  tg::autograd::skip_history(node);
  Tensor last = floats({0});
  tg::autograd::set_history(last, node);
  CHECK(node->num_inputs() == 4);
  CHECK(values_out.grad_fn() == node);
  CHECK_FALSE(indices.requires_grad());
  CHECK(last.output_nr() == 3);
  CHECK(node->input_metadata(2).dtype == tg::ScalarType::Undefined);

  CHECK(tg::autograd::compute_requires_grad(x, indices));
  CHECK_FALSE(tg::autograd::compute_requires_grad(indices, std::optional<Tensor>()));
  edge_list edges = tg::autograd::collect_next_edges(x, indices, std::optional<Tensor>());
  REQUIRE(edges.size() == 3);
  CHECK(edges[0].function->name() == "AccumulateGrad");
  CHECK_FALSE(edges[1].is_valid());
  CHECK_FALSE(edges[2].is_valid());
}

TEST_CASE("autograd: is_expandable_to and sum_to") {
  using tg::autograd::is_expandable_to;
  using tg::autograd::sum_to;
  CHECK(is_expandable_to({3}, {2, 3}));
  CHECK(is_expandable_to({1, 3}, {4, 2, 3}));
  CHECK(is_expandable_to({}, {2}));
  CHECK_FALSE(is_expandable_to({2}, {2, 3}));
  CHECK_FALSE(is_expandable_to({2, 3}, {3}));

  Tensor g = floats({1, 2, 3, 10, 20, 30}, {2, 3});
  CHECK(sum_to(g, {2, 3}).is_same(g));
  Tensor rows = sum_to(g, {3});
  CHECK(rows.sizes().vec() == std::vector<int64_t>{3});
  CHECK(values(rows) == std::vector<float>{11, 22, 33});
  Tensor cols = sum_to(g, {2, 1});
  CHECK(cols.sizes().vec() == std::vector<int64_t>{2, 1});
  CHECK(values(cols) == std::vector<float>{6, 60});
  Tensor all = sum_to(g, {});
  CHECK(all.dim() == 0);
  CHECK(values(all) == std::vector<float>{66});
  CHECK(values(sum_to(g, {1, 3})) == std::vector<float>{11, 22, 33});
  CHECK(error_of([&] { sum_to(g, {4}); }) ==
        "[sum_to] cannot reduce a gradient of shape [2, 3] to shape [4]: [4] does not broadcast to [2, 3]");
}

namespace {

// x (4 elements) -> b = x * 1 -> v = b[1:3], recorded by hand; then `v *= 3` in place,
// recorded through set_inplace_history.
struct ViewGraph {
  Tensor x = leaf({1, 2, 3, 4});
  Tensor b;
  Tensor v;
  std::shared_ptr<ScaleNode> inplace;

  ViewGraph() {
    b = output_of(std::make_shared<ScaleNode>("MulBackward0", 1.f, edge_list{impl::gradient_edge(x)}), {1, 2, 3, 4});
    // The view and its backward: the gradient of v lands in elements 1 and 2 of b's.
    auto slice = std::make_shared<LambdaNode>("SliceBackward0", edge_list{impl::gradient_edge(b)},
                                              [](variable_list& grads) {
                                                std::vector<float> g = values(grads[0]);
                                                return variable_list{floats({0, g[0], g[1], 0})};
                                              });
    auto impl_ = tg::make_intrusive<tg::TensorImpl>(b.storage(), tg::kFloat, tg::IntArrayRef{2});
    impl_->set_storage_offset(1);
    v = Tensor(std::move(impl_));
    tg::autograd::set_history(v, slice);
    impl::set_view_of(v, b);
  }

  void multiply_view_in_place() {
    tg::autograd::check_inplace("mul_.Scalar", v, true);
    inplace = std::make_shared<ScaleNode>("MulBackward1", 3.f, tg::autograd::collect_next_edges(v));
    float* data = v.data_ptr<float>();
    data[0] *= 3;
    data[1] *= 3;
    v.unsafeGetTensorImpl()->bump_version();
    tg::autograd::set_inplace_history(v, inplace);
  }
};

}  // namespace

TEST_CASE("autograd: in-place on a view rewrites its base's history (CopySlices)") {
  ViewGraph graph;
  CHECK(graph.v.grad_fn()->name() == "SliceBackward0");
  graph.multiply_view_in_place();
  CHECK(values(graph.b) == std::vector<float>{1, 6, 9, 4});
  CHECK(graph.b.grad_fn()->name() == "CopySlices");
  CHECK(graph.v.grad_fn()->name() == "AsStridedBackward0");
  CHECK(graph.v.grad_fn()->next_edge(0).function == graph.b.grad_fn());

  // d(sum b)/dx = [1, 3, 3, 1]: the view's part went through the in-place op's node.
  graph.b.backward(floats({1, 1, 1, 1}), true);
  CHECK(values(graph.x.grad()) == std::vector<float>{1, 3, 3, 1});
  CHECK(graph.inplace->received == std::vector<float>{1, 1});

  // d(sum v)/dx = [0, 3, 3, 0], through the regenerated view grad_fn.
  graph.x.mutable_grad().reset();
  graph.v.backward(floats({1, 1}));
  CHECK(values(graph.x.grad()) == std::vector<float>{0, 3, 3, 0});
}

TEST_CASE("autograd: a view's grad_fn is regenerated when its base changes in place") {
  ViewGraph graph;
  auto slice_fn = graph.v.grad_fn();
  // The base is modified in place (b *= 2): only the version and b's history move.
  auto on_base = std::make_shared<ScaleNode>("MulBackward2", 2.f, tg::autograd::collect_next_edges(graph.b));
  graph.b.unsafeGetTensorImpl()->bump_version();
  tg::autograd::set_inplace_history(graph.b, on_base);
  CHECK(graph.b.grad_fn() == on_base);
  CHECK(graph.v.grad_fn() != slice_fn);
  CHECK(graph.v.grad_fn()->name() == "AsStridedBackward0");
  CHECK(graph.v.grad_fn()->next_edge(0).function == on_base);
  graph.v.backward(floats({1, 10}));
  CHECK(values(graph.x.grad()) == std::vector<float>{0, 2, 20, 0});
}

TEST_CASE("autograd: a CopySlices graph whose nodes saved nothing runs again without retain_graph") {
  ViewGraph graph;
  graph.multiply_view_in_place();
  graph.b.backward(floats({1, 1, 1, 1}));
  graph.x.mutable_grad().reset();
  // No saved tensors in these nodes: a second pass still works, as in PyTorch.
  graph.b.backward(floats({1, 1, 1, 1}));
  CHECK(values(graph.x.grad()) == std::vector<float>{1, 3, 3, 1});
}

TEST_CASE("autograd: gradients through real operators on plain tensors") {
  // Only kernels below autograd run here: the grads are plain tensors.
  Tensor x = leaf({1, 2, 3});
  auto node = std::make_shared<LambdaNode>("MulBackward0", edge_list{impl::gradient_edge(x)}, [](variable_list& g) {
    return variable_list{tg::mul(g[0], floats({2, 2, 2}))};
  });
  Tensor y = output_of(node, {2, 4, 6});
  y.backward(tg::ones({3}), true);
  CHECK(values(x.grad()) == std::vector<float>{2, 2, 2});
  y.backward(tg::full({3}, 0.5));
  CHECK(values(x.grad()) == std::vector<float>{3, 3, 3});
  // The implicit gradient of a one-element output.
  Tensor one = leaf({5});
  tg::autograd::backward({one});
  CHECK(values(one.grad()) == std::vector<float>{1});
}
