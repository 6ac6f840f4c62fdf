#include "nn/modules/conv_transpose.h"

#include <cmath>

#include "nn/functional/optional_tensor.h"
#include "nn/init.h"
#include "tensorgen/ops.h"

namespace tg::nn {

template <size_t D, typename Derived>
ConvTransposeNdImpl<D, Derived>::ConvTransposeNdImpl(const ConvTransposeOptions<D>& options_) : options(options_) {
  TG_CHECK_VALUE(options.groups() > 0, "[nn::ConvTranspose", D, "d] groups must be a positive integer, got ",
                 options.groups());
  TG_CHECK_VALUE(options.in_channels() > 0 && options.in_channels() % options.groups() == 0 &&
                     options.out_channels() > 0 && options.out_channels() % options.groups() == 0,
                 "[nn::ConvTranspose", D, "d] in_channels and out_channels must be positive and divisible by ",
                 "groups, got in_channels=", options.in_channels(), ", out_channels=", options.out_channels(),
                 " and groups=", options.groups());
  for (size_t i = 0; i < D; ++i) {
    TG_CHECK_VALUE(options.kernel_size()[i] > 0 && options.stride()[i] > 0 && options.dilation()[i] > 0 &&
                       options.padding()[i] >= 0 && options.output_padding()[i] >= 0,
                   "[nn::ConvTranspose", D, "d] kernel_size, stride and dilation must be positive, padding and ",
                   "output_padding non-negative, got kernel_size=", options.kernel_size(), ", stride=",
                   options.stride(), ", dilation=", options.dilation(), ", padding=", options.padding(),
                   ", output_padding=", options.output_padding());
  }
  reset();
}

template <size_t D, typename Derived>
void ConvTransposeNdImpl<D, Derived>::reset() {
  std::vector<int64_t> shape = {options.in_channels(), options.out_channels() / options.groups()};
  for (size_t i = 0; i < D; ++i) shape.push_back(options.kernel_size()[i]);
  weight = this->register_parameter("weight", tg::empty(shape));
  bias = this->register_parameter("bias", options.bias() ? tg::empty({options.out_channels()}) : Tensor(),
                                  options.bias());
  reset_parameters();
}

template <size_t D, typename Derived>
void ConvTransposeNdImpl<D, Derived>::reset_parameters() {
  init::conv_default_(weight, bias);
}

template <size_t D, typename Derived>
void ConvTransposeNdImpl<D, Derived>::pretty_print(std::ostream& stream) const {
  stream << "tg::nn::ConvTranspose" << D << "d(" << options.in_channels() << ", " << options.out_channels()
         << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  bool any_padding = false, any_output_padding = false, any_dilation = false;
  for (size_t i = 0; i < D; ++i) {
    any_padding = any_padding || options.padding()[i] != 0;
    any_output_padding = any_output_padding || options.output_padding()[i] != 0;
    any_dilation = any_dilation || options.dilation()[i] != 1;
  }
  if (any_padding) stream << ", padding=" << options.padding();
  if (any_output_padding) stream << ", output_padding=" << options.output_padding();
  if (any_dilation) stream << ", dilation=" << options.dilation();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << ")";
}

template <size_t D, typename Derived>
Tensor ConvTransposeNdImpl<D, Derived>::forward(const Tensor& input) {
  const int64_t rank = static_cast<int64_t>(D) + 2;
  TG_CHECK_VALUE((input.dim() == rank || input.dim() == rank - 1) && input.size(input.dim() == rank ? 1 : 0) ==
                                                                         options.in_channels(),
                 "[nn::ConvTranspose", D, "d] expected a [N, ", options.in_channels(), ", *] input with ", D,
                 " spatial dims (or one without N), got shape ", input.sizes());
  return tg::convolution(input, weight, functional::detail::optional_tensor(bias), options.stride(),
                         options.padding(), options.dilation(), /*transposed=*/true, options.output_padding(),
                         options.groups());
}

template class ConvTransposeNdImpl<1, ConvTranspose1dImpl>;
template class ConvTransposeNdImpl<2, ConvTranspose2dImpl>;
template class ConvTransposeNdImpl<3, ConvTranspose3dImpl>;

}  // namespace tg::nn
