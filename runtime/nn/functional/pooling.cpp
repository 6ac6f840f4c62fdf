#include "nn/functional/pooling.h"

#include "core/error.h"

namespace tg::nn::functional {
namespace {

void check_1d_input(const Tensor& input, const char* op) {
  TG_CHECK(input.dim() == 2 || input.dim() == 3, "[nn::functional::", op,
           "] expected a 2-d [C, L] or 3-d [N, C, L] input, got ", input.sizes());
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& options) {
  check_1d_input(input, "max_pool1d");
  auto [values, indices] =
      tg::max_pool2d_with_indices(input.unsqueeze(-2), {1, options.kernel_size()[0]}, {1, options.stride()[0]},
                                  {0, options.padding()[0]}, {1, options.dilation()[0]}, options.ceil_mode());
  // Within a [1, L] plane the flat index is the position along L.
  return {values.squeeze(-2), indices.squeeze(-2)};
}

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

}  // namespace tg::nn::functional
