// Sequential, ModuleList and ModuleDict: what they register, how they name and index their
// modules, forward through a Sequential, and their errors.
#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;
namespace nn = tg::nn;

namespace {

// A module a user writes, held by value in a container.
struct ScaleImpl : nn::Module {
  explicit ScaleImpl(double factor_) : factor(factor_) {}
  Tensor forward(const Tensor& x) { return x * factor; }
  double factor;
};
TG_MODULE(Scale);

}  // namespace

TEST_CASE("nn_containers: Sequential chains forward and names its children 0, 1, ...") {
  nn::Sequential seq(nn::Linear(3, 4), nn::ReLU(), nn::Linear(4, 2), Scale(2.0));
  CHECK(seq->size() == 4);
  CHECK(seq->named_parameters().keys() == std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"});
  const Tensor x = tg::randn({5, 3});
  auto& first = seq->at<nn::LinearImpl>(0);
  auto third = seq->ptr<nn::LinearImpl>(2);
  const Tensor expected = third->forward(tg::relu(first.forward(x))) * 2.0;
  CHECK(elements(seq->forward(x)) == elements(expected));
  CHECK(elements(seq(x)) == elements(expected));
  CHECK(seq[1]->as<nn::ReLU>() != nullptr);
  seq->push_back("last", nn::Tanh());
  CHECK(seq->named_children().keys().back() == "last");
  CHECK(contains(thrown<tg::IndexError>([&] { seq->ptr(9); }), "index 9 is out of range for a Sequential of 5 modules"));
  CHECK(contains(thrown<tg::Error>([&] { seq->at<nn::Conv2dImpl>(0); }), "not the type asked for"));
  nn::Sequential empty;
  CHECK(contains(thrown<tg::Error>([&] { empty->forward(x); }), "empty Sequential"));
  // Nested Sequentials and shared_ptrs are accepted too.
  nn::Sequential outer(seq, std::make_shared<nn::ReLUImpl>());
  CHECK(outer->named_parameters().size() == 4);
  CHECK(outer->named_parameters().keys().front() == "0.0.weight");
}

TEST_CASE("nn_containers: ModuleList registers, indexes, inserts and iterates") {
  nn::ModuleList list(nn::Linear(2, 2), nn::Linear(2, 3));
  list->push_back(nn::Linear(3, 1));
  CHECK(list->size() == 3);
  CHECK(list->named_parameters().size() == 6);
  list->insert(1, nn::ReLU());
  CHECK(list->named_children().keys() == std::vector<std::string>{"0", "1", "2", "3"});
  CHECK(list[1]->as<nn::ReLU>() != nullptr);
  CHECK(list->ptr<nn::LinearImpl>(3)->options.out_features() == 1);
  CHECK(list->named_parameters().keys().back() == "3.bias");
  Tensor x = tg::ones({1, 2});
  for (const auto& module : *list) {
    if (auto* linear = module->as<nn::Linear>()) x = linear->forward(x);
  }
  CHECK(vec(x.sizes()) == Ints{1, 1});
  CHECK(contains(thrown<tg::IndexError>([&] { list->insert(9, nn::ReLU()); }), "index 9 is out of range"));
  auto copy = std::dynamic_pointer_cast<nn::ModuleListImpl>(list->clone());
  REQUIRE(copy != nullptr);
  CHECK(copy->named_parameters().keys() == list->named_parameters().keys());
  CHECK(!copy->named_parameters()["0.weight"].is_alias_of(list->named_parameters()["0.weight"]));
}

TEST_CASE("nn_containers: ModuleDict keeps keys in order, updates, pops") {
  nn::ModuleDict dict(std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>>{
      {"encoder", nn::Linear(4, 2).ptr()}, {"activation", nn::ReLU().ptr()}});
  CHECK(dict->keys() == std::vector<std::string>{"encoder", "activation"});
  CHECK(dict->contains("encoder"));
  CHECK(dict->at<nn::LinearImpl>("encoder").options.in_features() == 4);
  dict->update({{"encoder", nn::Linear(4, 3).ptr()}, {"decoder", nn::Linear(3, 4).ptr()}});
  CHECK(dict->keys() == std::vector<std::string>{"encoder", "activation", "decoder"});
  CHECK(dict->at<nn::LinearImpl>("encoder").options.out_features() == 3);
  CHECK(dict->named_parameters().keys() ==
        std::vector<std::string>{"encoder.weight", "encoder.bias", "decoder.weight", "decoder.bias"});
  dict->pop("activation");
  CHECK(dict->size() == 2);
  CHECK(contains(thrown<tg::IndexError>([&] { (*dict)["activation"]; }), "no module with key 'activation'"));
  dict->insert("extra", nn::Tanh());
  CHECK(contains(thrown<tg::Error>([&] { dict->insert("extra", nn::Tanh()); }), "key 'extra' is already in the ModuleDict"));
  dict->clear();
  CHECK(dict->is_empty());
}
