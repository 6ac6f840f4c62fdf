// Optimizer state saved and loaded through safetensors: a restored optimizer continues
// exactly as the original, for each optimizer; mismatched or corrupt state is refused
// without changing the optimizer.
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;
namespace optim = tg::optim;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tg_test_optim_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

using Factory = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

void train_steps(optim::Optimizer& opt, const std::vector<Tensor>& params, int steps, int offset) {
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    Tensor loss = tg::zeros({}, tg::kDouble);
    for (const Tensor& p : params) loss = loss + (p * p * (1.0 + 0.1 * (s + offset)) - p).sum();
    loss.backward();
    opt.step();
  }
}

}  // namespace

TEST_CASE("optim_state: save after 3 steps, load into a fresh optimizer, both continue alike") {
  const std::vector<std::pair<const char*, Factory>> factories = {
      {"SGD",
       [](std::vector<Tensor> p) {
         return std::make_unique<optim::SGD>(p, optim::SGDOptions(0.1).momentum(0.9).nesterov(true));
       }},
      {"Adam",
       [](std::vector<Tensor> p) { return std::make_unique<optim::Adam>(p, optim::AdamOptions(0.05).amsgrad(true)); }},
      {"AdamW", [](std::vector<Tensor> p) { return std::make_unique<optim::AdamW>(p, optim::AdamWOptions(0.05)); }},
      {"RMSprop",
       [](std::vector<Tensor> p) {
         return std::make_unique<optim::RMSprop>(p, optim::RMSpropOptions(0.01).momentum(0.5).centered(true));
       }},
      {"Adagrad",
       [](std::vector<Tensor> p) { return std::make_unique<optim::Adagrad>(p, optim::AdagradOptions(0.1)); }},
  };
  // Not a structured binding: CAPTURE's lambda cannot capture one under clang 14 (the
  // sanitized leg's compiler).
  for (const auto& entry : factories) {
    const char* const name = entry.first;
    const Factory& factory = entry.second;
    CAPTURE(name);
    std::vector<Tensor> params = {make({1, -1, 2}, {3}, tg::kDouble).requires_grad_(),
                                  make({0.5, 0.25, -0.5, 1}, {2, 2}, tg::kDouble).requires_grad_()};
    auto original = factory(params);
    train_steps(*original, params, 3, 0);
    const std::string path = temp_path(std::string(name) + ".safetensors");
    tg::save(*original, path);

    // The same parameter values in new tensors, and an optimizer made with different options:
    // loading restores both the state and the options.
    std::vector<Tensor> copies;
    for (const Tensor& p : params) copies.push_back(p.detach().clone().requires_grad_());
    auto restored = factory(copies);
    restored->param_groups()[0].options().set_lr(123.0);
    tg::load(*restored, path);
    CHECK(restored->param_groups()[0].options().get_lr() == original->param_groups()[0].options().get_lr());

    train_steps(*original, params, 2, 3);
    train_steps(*restored, copies, 2, 3);
    for (size_t i = 0; i < params.size(); ++i) CHECK(values(copies[i]) == values(params[i]));

    // A fresh optimizer without the state takes a different path (the state matters).
    std::vector<Tensor> third;
    for (const Tensor& p : params) third.push_back(p.detach().clone().requires_grad_());
    auto fresh = factory(third);
    train_steps(*fresh, third, 1, 5);
    train_steps(*original, params, 1, 5);
    CHECK(values(third[0]) != values(params[0]));
    std::remove(path.c_str());
  }
}

TEST_CASE("optim_state: state of another optimizer or other parameters is refused, leaving the optimizer as it was") {
  Tensor w = make({1, 2}, {2}, tg::kDouble).requires_grad_();
  optim::Adam adam({w}, 0.1);
  train_steps(adam, {w}, 1, 0);
  const std::string path = temp_path("adam.safetensors");
  adam.save(path);

  optim::SGD sgd({w}, 0.1);
  CHECK(contains(thrown<tg::ValueError>([&] { sgd.load(path); }),
                 "[Optimizer::load] " + path + ": expected the state of a SGD optimizer, got that of Adam"));

  Tensor other = make({1, 2, 3}, {3}, tg::kDouble).requires_grad_();
  optim::Adam wrong_shape({other}, 0.5);
  CHECK(contains(thrown<tg::ValueError>([&] { wrong_shape.load(path); }),
                 "expected \"state.0.exp_avg\" of shape [3] like parameter 0, got [2]"));
  CHECK(wrong_shape.state().empty());
  CHECK(wrong_shape.param_groups()[0].options().get_lr() == 0.5);

  optim::Adam two_params({w, other}, 0.1);
  CHECK(contains(thrown<tg::ValueError>([&] { two_params.load(path); }), "expected group 0 of 2 parameters, got 1"));

  // A file that is not optimizer state at all.
  tg::save(w, path);
  CHECK(contains(thrown<tg::ValueError>([&] { adam.load(path); }), "expected metadata \"optimizer\""));
  std::remove(path.c_str());
}
