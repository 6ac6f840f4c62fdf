// The one header the port programs include: LibTorch when built with -DPORT_WITH_LIBTORCH,
// otherwise tensorgen under LibTorch's namespace. A program written against `torch::` builds
// against both from one source; this header is the whole of the port.
#pragma once

#if defined(PORT_WITH_LIBTORCH)
#include <torch/torch.h>
#define PORT_BACKEND "libtorch"
#else
#include <tensorgen/tensorgen.h>
namespace torch = tg;
#define TORCH_MODULE(Name) TG_MODULE(Name)
#define PORT_BACKEND "tensorgen"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace port {

// Every figure a program reports, one per line as `name value`, so that two runs compare.
inline void report(const std::string& name, double value) { std::printf("%s %.9g\n", name.c_str(), value); }

// Parameters set from a formula instead of a random generator, so that both libraries start
// from the same point: element i of the k-th parameter is sin(0.7 i + 1.3 k) / sqrt(fan_in)
// (fan_in = numel / size(0))
// (0.5 sin(...) for biases).
inline void deterministic_init(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  int64_t k = 0;
  for (auto& parameter : module.parameters()) {
    const double fan_in = static_cast<double>(parameter.numel() / std::max<int64_t>(parameter.size(0), 1));
    const double scale = parameter.dim() >= 2 ? 1.0 / std::sqrt(fan_in) : 0.5;
    std::vector<float> values(static_cast<size_t>(parameter.numel()));
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] = static_cast<float>(scale * std::sin(0.7 * static_cast<double>(i) + 1.3 * static_cast<double>(k)));
    }
    parameter.copy_(torch::tensor(values).view(parameter.sizes()));
    ++k;
  }
}

// Plain gradient descent: p -= lr * grad.
inline void sgd_step(torch::nn::Module& module, double lr) {
  torch::NoGradGuard no_grad;
  for (auto& parameter : module.parameters()) {
    if (parameter.grad().defined()) parameter.sub_(parameter.grad() * lr);
  }
}

}  // namespace port
