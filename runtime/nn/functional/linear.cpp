#include "nn/functional/linear.h"

#include "core/error.h"

namespace tg::nn::functional {

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias) {
  TG_CHECK(weight.dim() == 3, "[nn::functional::bilinear] weight must be [out, in1, in2], got ", weight.sizes());
  TG_CHECK(input1.dim() >= 1 && input2.dim() >= 1 && input1.size(-1) == weight.size(1) &&
               input2.size(-1) == weight.size(2),
           "[nn::functional::bilinear] inputs' last sizes must be weight's in1 and in2 (", weight.size(1), ", ",
           weight.size(2), "), got ", input1.sizes(), " and ", input2.sizes());
  TG_CHECK(input1.sizes().vec().size() == input2.sizes().vec().size() &&
               input1.sizes().slice(0, input1.dim() - 1).vec() == input2.sizes().slice(0, input2.dim() - 1).vec(),
           "[nn::functional::bilinear] inputs must agree in all but the last dimension, got ", input1.sizes(), " and ",
           input2.sizes());
  const int64_t out = weight.size(0), in1 = weight.size(1), in2 = weight.size(2);
  std::vector<int64_t> out_shape = input1.sizes().vec();
  out_shape.back() = out;
  const Tensor x1 = input1.reshape({-1, in1});
  const Tensor x2 = input2.reshape({-1, in2});
  // x1 W: [B, in1] @ [in1, out * in2] -> [B, out, in2], then contracted with x2 over in2.
  const Tensor projected = tg::matmul(x1, weight.permute({1, 0, 2}).reshape({in1, out * in2})).view({-1, out, in2});
  Tensor result = (projected * x2.unsqueeze(1)).sum({2});
  if (bias.defined()) result = result + bias;
  return result.view(out_shape);
}

}  // namespace tg::nn::functional
