// Port program 1: an MLP fitted by gradient descent to y = 0.8 tanh(3x) - 0.5 x^2 on [-1, 1], written as a
// LibTorch program: a torch::nn::Module with registered Linear layers, F::mse_loss, backward.
#include <cmath>

#include "port.h"

namespace F = torch::nn::functional;

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(1, 16))),
        fc2(register_module("fc2", torch::nn::Linear(16, 16))),
        fc3(register_module("fc3", torch::nn::Linear(torch::nn::LinearOptions(16, 1).bias(true)))) {}

  torch::Tensor forward(torch::Tensor x) {
    x = torch::tanh(fc1(x));
    x = torch::tanh(fc2(x));
    return fc3(x);
  }

  torch::nn::Linear fc1, fc2, fc3;
};
TORCH_MODULE(Net);

int main() {
  Net net;
  port::deterministic_init(*net);
  for (const auto& item : net->named_parameters()) {
    port::report("parameter." + item.key() + ".numel", static_cast<double>(item.value().numel()));
  }
  const auto x = torch::arange(64, torch::kFloat).div(32.0).sub(1.0).view({64, 1});
  const auto y = torch::tanh(x * 3.0) * 0.8 - x * x * 0.5;
  for (int step = 0; step <= 400; ++step) {
    net->zero_grad();
    const auto loss = F::mse_loss(net->forward(x), y);
    if (step % 100 == 0) port::report("loss.step" + std::to_string(step), loss.item<double>());
    if (step == 400) break;
    loss.backward();
    port::sgd_step(*net, 0.2);
  }
  torch::NoGradGuard no_grad;
  const auto probe = torch::tensor({-0.75f, 0.0f, 0.5f}).view({3, 1});
  const auto prediction = net->forward(probe);
  for (int64_t i = 0; i < 3; ++i) port::report("prediction." + std::to_string(i), prediction.select(0, i).item<double>());
  return 0;
}
