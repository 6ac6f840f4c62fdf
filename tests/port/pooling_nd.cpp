// Port program 5: the pooling modules of LibTorch's C++ frontend in 1-d to 3-d, sliding and
// adaptive, max (with forward_with_indices) and average, on a fixed input. Each module reports a
// weighted sum of its output, of its indices and of the input's gradient, so that the tensorgen
// and LibTorch builds compare figure by figure (values, index layout, ceil_mode and padding
// rules, backward); the program also checks that 3-d pooling over a depth of 1 is the 2-d one.
#include <functional>
#include <string>

#include "port.h"

namespace {

// A tensor of `sizes` holding sin(scale * i + shift), i its flat position, in double.
torch::Tensor wave(std::vector<int64_t> sizes, double scale, double shift) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  return (torch::arange(numel, torch::kDouble) * scale + shift).sin().view(sizes);
}

double weighted_sum(const torch::Tensor& t) {
  return (t.to(torch::kDouble) * wave(t.sizes().vec(), 0.11, 0.5)).sum().item<double>();
}

// Reports `name`.output, .indices (when there are some) and .grad of one pooling of x.
void report_pool(const std::string& name, const torch::Tensor& input,
                 const std::function<std::tuple<torch::Tensor, torch::Tensor>(const torch::Tensor&)>& pool) {
  const torch::Tensor x = input.detach().clone().requires_grad_(true);
  auto [output, indices] = pool(x);
  port::report(name + ".output", weighted_sum(output));
  if (indices.defined()) port::report(name + ".indices", weighted_sum(indices));
  (output * wave(output.sizes().vec(), 0.23, 1.0)).sum().backward();
  port::report(name + ".grad", weighted_sum(x.grad()));
}

template <typename Module>
std::function<std::tuple<torch::Tensor, torch::Tensor>(const torch::Tensor&)> with_indices(Module module) {
  return [module](const torch::Tensor& x) mutable { return module->forward_with_indices(x); };
}

template <typename Module>
std::function<std::tuple<torch::Tensor, torch::Tensor>(const torch::Tensor&)> values_only(Module module) {
  return [module](const torch::Tensor& x) mutable { return std::make_tuple(module->forward(x), torch::Tensor()); };
}

}  // namespace

int main() {
  namespace nn = torch::nn;
  const torch::Tensor x1 = wave({2, 3, 11}, 0.37, 0.0);
  const torch::Tensor x2 = wave({2, 3, 9, 7}, 0.37, 0.0);
  const torch::Tensor x3 = wave({2, 3, 5, 6, 7}, 0.37, 0.0);

  report_pool("max_pool1d", x1,
              with_indices(nn::MaxPool1d(nn::MaxPool1dOptions(3).stride(2).padding(1).ceil_mode(true))));
  report_pool("max_pool2d", x2,
              with_indices(nn::MaxPool2d(nn::MaxPool2dOptions({3, 2}).stride({2, 1}).dilation({1, 2}))));
  const auto max3 =
      nn::MaxPool3dOptions({2, 3, 2}).stride({2, 1, 2}).padding({1, 1, 0}).dilation({1, 2, 1}).ceil_mode(true);
  report_pool("max_pool3d", x3, with_indices(nn::MaxPool3d(max3)));
  const auto avg3 =
      nn::AvgPool3dOptions({3, 2, 3}).stride({2, 2, 1}).padding({1, 0, 1}).ceil_mode(true).count_include_pad(false);
  report_pool("avg_pool3d", x3, values_only(nn::AvgPool3d(avg3)));
  report_pool("avg_pool3d_divisor", x3,
              values_only(nn::AvgPool3d(nn::AvgPool3dOptions(2).stride(1).padding(1).divisor_override(3))));
  report_pool("adaptive_max_pool1d", x1, with_indices(nn::AdaptiveMaxPool1d(nn::AdaptiveMaxPool1dOptions(4))));
  report_pool("adaptive_max_pool2d", x2, with_indices(nn::AdaptiveMaxPool2d(nn::AdaptiveMaxPool2dOptions({4, 5}))));
  report_pool("adaptive_max_pool3d", x3, with_indices(nn::AdaptiveMaxPool3d(nn::AdaptiveMaxPool3dOptions({3, 4, 5}))));
  report_pool("adaptive_avg_pool1d", x1, values_only(nn::AdaptiveAvgPool1d(nn::AdaptiveAvgPool1dOptions(4))));
  report_pool("adaptive_avg_pool2d", x2, values_only(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({4, 5}))));
  report_pool("adaptive_avg_pool3d", x3, values_only(nn::AdaptiveAvgPool3d(nn::AdaptiveAvgPool3dOptions({3, 4, 5}))));

  // 3-d pooling over a depth of 1 against the 2-d pooling of the same planes.
  const torch::Tensor deep = x2.unsqueeze(2);
  const torch::Tensor by_3d = nn::MaxPool3d(nn::MaxPool3dOptions({1, 3, 2}).stride({1, 2, 1}).padding({0, 1, 1}))(deep);
  const torch::Tensor by_2d = nn::MaxPool2d(nn::MaxPool2dOptions({3, 2}).stride({2, 1}).padding({1, 1}))(x2);
  const torch::Tensor avg_3d =
      nn::AvgPool3d(nn::AvgPool3dOptions({1, 3, 3}).padding({0, 1, 1}).count_include_pad(false))(deep);
  const torch::Tensor avg_2d = nn::AvgPool2d(nn::AvgPool2dOptions(3).padding(1).count_include_pad(false))(x2);
  port::report("depth1_vs_2d.max_difference",
               std::max((by_3d.squeeze(2) - by_2d).abs().max().item<double>(),
                        (avg_3d.squeeze(2) - avg_2d).abs().max().item<double>()));
  return 0;
}
