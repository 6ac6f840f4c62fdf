#include "nn/functional/pooling.h"

#include <vector>

#include "core/error.h"

namespace tg::nn::functional {
namespace {

void check_1d_input(const Tensor& input, const char* op) {
  TG_CHECK(input.dim() == 2 || input.dim() == 3, "[nn::functional::", op,
           "] expected a 2-d [C, L] or 3-d [N, C, L] input, got ", input.sizes());
}

// Note [Adaptive pooling windows]
// Output cell i of n over an input of size s averages input [floor(i s / n), ceil((i + 1) s / n)),
// as PyTorch does: windows cover the input, may overlap, and differ in size by at most one.
// A rectangle's mean is the mean of its rows' means, so the two dimensions are pooled one
// after the other.
Tensor adaptive_mean_along(const Tensor& input, int64_t dim, int64_t output_size) {
  const int64_t size = input.size(dim);
  if (size == output_size) return input;
  std::vector<Tensor> cells;
  cells.reserve(static_cast<size_t>(output_size));
  for (int64_t i = 0; i < output_size; ++i) {
    const int64_t start = (i * size) / output_size;
    const int64_t end = ((i + 1) * size + output_size - 1) / output_size;
    cells.push_back(input.narrow(dim, start, end - start).mean({dim}, /*keepdim=*/true));
  }
  return tg::cat(cells, dim);
}

}  // namespace

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options) {
  check_1d_input(input, "max_pool1d");
  return tg::max_pool2d(input.unsqueeze(-2), {1, options.kernel_size()[0]}, {1, options.stride()[0]},
                        {0, options.padding()[0]}, {1, options.dilation()[0]}, options.ceil_mode())
      .squeeze(-2);
}

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options) {
  check_1d_input(input, "avg_pool1d");
  return tg::avg_pool2d(input.unsqueeze(-2), {1, options.kernel_size()[0]}, {1, options.stride()[0]},
                        {0, options.padding()[0]}, options.ceil_mode(), options.count_include_pad(),
                        options.divisor_override())
      .squeeze(-2);
}

Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options) {
  TG_CHECK(input.dim() == 3 || input.dim() == 4, "[nn::functional::adaptive_avg_pool2d] expected a 3-d or 4-d input, got ",
           input.sizes());
  const int64_t out_h = options.output_size()[0], out_w = options.output_size()[1];
  TG_CHECK(out_h > 0 && out_w > 0, "[nn::functional::adaptive_avg_pool2d] output_size must be positive, got ",
           options.output_size());
  const int64_t h = input.size(-2), w = input.size(-1);
  TG_CHECK(h > 0 && w > 0, "[nn::functional::adaptive_avg_pool2d] input's spatial sizes must be positive, got ",
           input.sizes());
  if (h % out_h == 0 && w % out_w == 0) {
    return tg::avg_pool2d(input, {h / out_h, w / out_w}, {h / out_h, w / out_w});
  }
  return adaptive_mean_along(adaptive_mean_along(input, input.dim() - 2, out_h), input.dim() - 1, out_w);
}

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options) {
  check_1d_input(input, "adaptive_avg_pool1d");
  const int64_t out = options.output_size()[0];
  TG_CHECK(out > 0, "[nn::functional::adaptive_avg_pool1d] output_size must be positive, got ", out);
  TG_CHECK(input.size(-1) > 0, "[nn::functional::adaptive_avg_pool1d] input's length must be positive, got ",
           input.sizes());
  return adaptive_mean_along(input, input.dim() - 1, out);
}

}  // namespace tg::nn::functional
