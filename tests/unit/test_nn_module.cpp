// tg::nn::Module and its holders: registration and its errors, recursive dotted names,
// children and modules, train/eval, zero_grad, apply, to(), clone() and printing.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;
namespace nn = tg::nn;

namespace {

// A user-defined module written as a LibTorch user writes one.
struct BlockImpl : nn::Module {
  BlockImpl() {
    fc = register_module("fc", nn::Linear(nn::LinearOptions(3, 4).bias(false)));
    scale = register_parameter("scale", tg::ones({4}));
    running = register_buffer("running", tg::zeros({4}));
  }
  Tensor forward(const Tensor& x) { return fc(x) * scale; }
  nn::Linear fc{nullptr};
  Tensor scale, running;
};
TG_MODULE(Block);

struct NetImpl : nn::Module {
  NetImpl() {
    block = register_module("block", Block());
    head = register_module("head", nn::Linear(4, 2));
  }
  Tensor forward(const Tensor& x) { return head(tg::relu(block(x))); }
  Block block{nullptr};
  nn::Linear head{nullptr};
};
TG_MODULE(Net);

}  // namespace

TEST_CASE("nn_module: named_parameters are recursive, dotted, each module's own before its children's") {
  Net net;
  const auto named = net->named_parameters();
  // LibTorch's (and PyTorch's) order: a module's own parameters, then each child's in turn.
  CHECK(named.keys() == std::vector<std::string>{"block.scale", "block.fc.weight", "head.weight", "head.bias"});
  CHECK(vec(named["block.fc.weight"].sizes()) == Ints{4, 3});
  CHECK(named["head.bias"].requires_grad());
  CHECK(net->parameters().size() == 4);
  // The table holds the very tensors the members hold.
  CHECK(named["head.weight"].is_same(net->head->weight));
  CHECK(net->named_parameters(/*recurse=*/false).is_empty());
  CHECK(net->block->named_parameters(false).keys() == std::vector<std::string>{"scale"});
  // A Linear without bias registers an undefined bias, which no query returns.
  CHECK(net->block->fc->named_parameters().keys() == std::vector<std::string>{"weight"});
  CHECK(!net->block->fc->bias.defined());
  CHECK(net->named_buffers().keys() == std::vector<std::string>{"block.running"});
  CHECK(!net->named_buffers()["block.running"].requires_grad());
  // Iteration as LibTorch programs write it.
  int count = 0;
  for (const auto& item : net->named_parameters()) count += item.value().defined() && !item.key().empty();
  CHECK(count == 4);
}

TEST_CASE("nn_module: children, modules and their names") {
  Net net;
  CHECK(net->named_children().keys() == std::vector<std::string>{"block", "head"});
  CHECK(net->children().size() == 2);
  CHECK(net->named_modules().keys() == std::vector<std::string>{"", "block", "block.fc", "head"});
  CHECK(net->modules(/*include_self=*/false).size() == 3);
  CHECK(net->modules().front().get() == net.get());
  CHECK(net->named_modules("net").keys() == std::vector<std::string>{"net", "net.block", "net.block.fc", "net.head"});
  CHECK(net->children()[1]->as<nn::Linear>() == net->head.get());
  CHECK(net->children()[1]->as<nn::Conv2d>() == nullptr);
  CHECK(net->children()[1]->as<nn::LinearImpl>() == net->head.get());
}

TEST_CASE("nn_module: registration errors say what was wrong") {
  nn::Module module;
  CHECK(contains(thrown<tg::Error>([&] { module.register_parameter("", tg::ones({1})); }), "must not be empty"));
  CHECK(contains(thrown<tg::Error>([&] { module.register_parameter("a.b", tg::ones({1})); }),
                 "must not contain a dot (got 'a.b')"));
  module.register_parameter("w", tg::ones({1}));
  CHECK(contains(thrown<tg::Error>([&] { module.register_parameter("w", tg::ones({1})); }), "Parameter 'w' already defined"));
  CHECK(contains(thrown<tg::Error>([&] { module.register_buffer("x.y", tg::ones({1})); }), "Buffer name must not contain a dot"));
  CHECK(contains(thrown<tg::Error>([&] { module.register_parameter("i", tg::ones({1}, tg::kLong)); }),
                 "must have a floating-point dtype"));
  CHECK(contains(thrown<tg::Error>([&] { module.register_module("m", std::shared_ptr<nn::LinearImpl>()); }),
                 "submodule 'm' is empty"));
  CHECK(contains(thrown<tg::Error>([&] { module.unregister_module("nope"); }), "no submodule named 'nope'"));
  // A module on the stack has no shared_ptr to hand out.
  CHECK(contains(thrown<tg::Error>([&] { module.modules(); }), "is not owned by a std::shared_ptr"));
  // An empty holder raises instead of dereferencing null.
  nn::Linear empty{nullptr};
  CHECK(empty.is_empty());
  CHECK(contains(thrown<tg::Error>([&] { empty->forward(tg::ones({1})); }), "accessing an empty ModuleHolder"));
}

TEST_CASE("nn_module: replace_module and unregister_module") {
  Net net;
  net->head = net->replace_module("head", nn::Linear(4, 5));
  CHECK(vec(net->named_parameters()["head.weight"].sizes()) == Ints{5, 4});
  CHECK(vec(net->forward(tg::ones({2, 3})).sizes()) == Ints{2, 5});
  net->unregister_module("head");
  CHECK(net->named_children().keys() == std::vector<std::string>{"block"});
}

TEST_CASE("nn_module: train and eval reach every descendant") {
  Net net;
  CHECK(net->is_training());
  net->eval();
  CHECK(!net->is_training());
  CHECK(!net->block->is_training());
  CHECK(!net->block->fc->is_training());
  net->train();
  CHECK(net->block->fc->is_training());
}

TEST_CASE("nn_module: zero_grad sets gradients to none or to zeros") {
  Net net;
  net->forward(tg::ones({2, 3})).sum().backward();
  for (const auto& p : net->parameters()) CHECK(p.grad().defined());
  net->zero_grad(/*set_to_none=*/false);
  for (const auto& p : net->parameters()) {
    REQUIRE(p.grad().defined());
    CHECK(p.grad().abs().sum().item<double>() == 0.0);
  }
  net->zero_grad();
  for (const auto& p : net->parameters()) CHECK(!p.grad().defined());
}

TEST_CASE("nn_module: apply visits every module, parents first, with names") {
  Net net;
  std::vector<std::string> names;
  net->apply([&](const std::string& name, nn::Module&) { names.push_back(name); });
  CHECK(names == std::vector<std::string>{"", "block", "block.fc", "head"});
  int linears = 0;
  net->apply([&](nn::Module& m) { linears += m.as<nn::Linear>() != nullptr; });
  CHECK(linears == 2);
  int pointers = 0;
  net->apply([&](const std::shared_ptr<nn::Module>& m) { pointers += m != nullptr; });
  CHECK(pointers == 4);
}

TEST_CASE("nn_module: to(device) keeps the members' identity") {
  Net net;
  const Tensor weight = net->head->weight;
  net->to(tg::Device(tg::kCPU));
  CHECK(net->head->weight.is_same(weight));
  CHECK(net->head->weight.device().is_cpu());
  // The helper under to() moves data into an existing tensor, keeping its autograd identity.
  const Tensor target = tg::zeros({2}).requires_grad_();
  tg::nn::detail::set_data(target, tg::ones({3}));
  CHECK(elements(target) == Values{1, 1, 1});
  CHECK(target.requires_grad());
  CHECK(target.is_leaf());
}

namespace {
// A module with an integer buffer, as BatchNorm's num_batches_tracked.
struct CountedImpl : nn::Module {
  CountedImpl() {
    net = register_module("net", Net());
    count = register_buffer("count", tg::zeros({1}, tg::kLong));
  }
  Tensor forward(const Tensor& x) { return net(x); }
  Net net{nullptr};
  Tensor count;
};
TG_MODULE(Counted);

double max_abs_difference(const Tensor& a, const Tensor& b) {
  const Values x = elements(a), y = elements(b);
  REQUIRE(x.size() == y.size());
  double most = 0;
  for (size_t i = 0; i < x.size(); ++i) most = std::max(most, std::abs(x[i] - y[i]));
  return most;
}
}  // namespace

TEST_CASE("nn_module: to(dtype) converts floating-point tensors and gradients in place, recursively") {
  Counted model;
  const Tensor x = make({0.5, -1, 2, 1, 0.25, -0.5}, {2, 3});
  const Tensor out_float = model(x);
  out_float.sum().backward();  // gradients exist before the conversion: they follow
  const Tensor weight = model->net->head->weight;
  const Tensor scale = model->net->block->scale;
  tg::optim::SGD optimizer(model->parameters(), tg::optim::SGDOptions(0.1));  // made before to()

  model->to(tg::kDouble);
  for (const auto& item : model->named_parameters()) {
    CAPTURE(item.key());
    CHECK(item.value().dtype() == tg::kDouble);
    CHECK(item.value().requires_grad());
    CHECK(item.value().is_leaf());
    REQUIRE(item.value().grad().defined());
    CHECK(item.value().grad().dtype() == tg::kDouble);
  }
  CHECK(model->net->block->running.dtype() == tg::kDouble);
  CHECK(model->count.dtype() == tg::kLong);  // integer buffers keep their dtype
  // Same Parameter identity: members and the optimizer see the converted tensors.
  CHECK(model->net->head->weight.is_same(weight));
  CHECK(model->net->block->scale.is_same(scale));

  const Tensor out_double = model(x.to(tg::kDouble));
  CHECK(out_double.dtype() == tg::kDouble);
  CHECK(max_abs_difference(out_double, out_float) < 1e-6);

  // The optimizer made before the conversion steps the converted parameters.
  optimizer.zero_grad();
  out_double.sum().backward();
  const Tensor grad = weight.grad().clone();
  CHECK(grad.dtype() == tg::kDouble);
  const Tensor before = weight.clone();
  optimizer.step();
  CHECK(weight.dtype() == tg::kDouble);
  CHECK(max_abs_difference(weight, before - grad * 0.1) < 1e-12);
  CHECK(max_abs_difference(weight, before) > 1e-3);

  // And back, through the (device, dtype) form.
  model->to(tg::Device(tg::kCPU), tg::kFloat);
  CHECK(weight.dtype() == tg::kFloat);
  CHECK(model->count.dtype() == tg::kLong);
  CHECK(model(x).dtype() == tg::kFloat);
}

TEST_CASE("nn_module: to(dtype) refuses an integral dtype, changing nothing") {
  Net net;
  for (const tg::ScalarType dtype : {tg::kLong, tg::kInt, tg::kBool}) {
    CHECK(contains(thrown<tg::Error>([&] { net->to(dtype); }), "[nn::Module::to] expects a floating-point dtype"));
    CHECK(contains(thrown<tg::Error>([&] { net->to(tg::Device(tg::kCPU), dtype); }), "NetImpl"));
  }
  for (const Tensor& p : net->parameters()) CHECK(p.dtype() == tg::kFloat);
}

TEST_CASE("nn_module: clone makes a deep copy of a built-in module tree") {
  nn::Sequential seq(nn::Linear(3, 4), nn::ReLU(), nn::Linear(4, 2));
  auto copy = std::dynamic_pointer_cast<nn::SequentialImpl>(seq->clone());
  REQUIRE(copy != nullptr);
  const Tensor x = tg::randn({5, 3});
  CHECK(elements(copy->forward(x)) == elements(seq->forward(x)));
  const auto original = seq->named_parameters(), cloned = copy->named_parameters();
  CHECK(cloned.keys() == original.keys());
  for (const auto& item : original) {
    CHECK(!cloned[item.key()].is_alias_of(item.value()));
    CHECK(cloned[item.key()].requires_grad());
  }
  // The copy's members are the copy's tensors: changing them leaves the original alone.
  {
    tg::NoGradGuard no_grad;
    copy->at<nn::LinearImpl>(0).weight.fill_(0.5);
  }
  CHECK(elements(cloned["0.weight"]) == Values(12, 0.5));
  CHECK(elements(original["0.weight"]) != Values(12, 0.5));
  // A module that is not Cloneable says how to make it so.
  Net net;
  CHECK(contains(thrown<tg::Error>([&] { net->clone(); }), "derive it from tg::nn::Cloneable"));
}

TEST_CASE("nn_module: printing shows the tree as LibTorch does") {
  Net net;
  std::ostringstream out;
  out << net;
  const std::string text = out.str();
  CHECK(contains(text, "NetImpl(\n"));
  CHECK(contains(text, "  (block): "));
  CHECK(contains(text, "    (fc): tg::nn::Linear(in_features=3, out_features=4, bias=false)\n"));
  CHECK(contains(text, "  (head): tg::nn::Linear(in_features=4, out_features=2, bias=true)\n)"));
}

TEST_CASE("nn_module: OrderedDict keeps insertion order and rejects duplicates") {
  tg::OrderedDict<std::string, int> dict;
  dict.insert("b", 1);
  dict.insert("a", 2);
  dict.insert("c", 3);
  CHECK(dict.keys() == std::vector<std::string>{"b", "a", "c"});
  CHECK(dict["a"] == 2);
  CHECK(dict.pop("a") == 2);
  CHECK(dict.keys() == std::vector<std::string>{"b", "c"});
  CHECK(dict["c"] == 3);
  CHECK(contains(thrown<tg::Error>([&] { dict.insert("b", 4); }), "'b' already defined"));
  CHECK(contains(thrown<tg::IndexError>([&] { dict.at("zz"); }), "'zz' is not defined"));
}
