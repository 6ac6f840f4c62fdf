#include "nn/modules/conv.h"

#include <cmath>
#include <string>

#include "nn/functional/conv.h"
#include "nn/init.h"
#include "tensorgen/ops.h"

namespace tg::nn {

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::check_options() const {
  const std::string name = "[nn::Conv" + std::to_string(D) + "d] ";
  TG_CHECK(options.groups() > 0, name, "groups must be a positive integer, got ", options.groups());
  TG_CHECK(options.in_channels() > 0 && options.in_channels() % options.groups() == 0, name,
           "in_channels must be positive and divisible by groups, got in_channels=", options.in_channels(),
           " and groups=", options.groups());
  TG_CHECK(options.out_channels() > 0 && options.out_channels() % options.groups() == 0, name,
           "out_channels must be positive and divisible by groups, got out_channels=", options.out_channels(),
           " and groups=", options.groups());
  for (size_t i = 0; i < D; ++i) {
    TG_CHECK(options.kernel_size()[i] > 0 && options.stride()[i] > 0 && options.dilation()[i] > 0 &&
                 options.padding()[i] >= 0,
             name, "kernel_size, stride and dilation must be positive and padding non-negative, got kernel_size=",
             options.kernel_size(), ", stride=", options.stride(), ", dilation=", options.dilation(),
             ", padding=", options.padding());
  }
}

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::reset() {
  std::vector<int64_t> shape = {options.out_channels(), options.in_channels() / options.groups()};
  for (size_t i = 0; i < D; ++i) shape.push_back(options.kernel_size()[i]);
  weight = this->register_parameter("weight", tg::empty(shape));
  bias = this->register_parameter("bias", options.bias() ? tg::empty({options.out_channels()}) : Tensor(),
                                  options.bias());
  reset_parameters();
}

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::reset_parameters() {
  init::conv_default_(weight, bias);
}

template <size_t D, typename Derived>
void ConvNdImpl<D, Derived>::pretty_print(std::ostream& stream) const {
  stream << "tg::nn::Conv" << D << "d(" << options.in_channels() << ", " << options.out_channels()
         << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  bool any_padding = false, any_dilation = false;
  for (size_t i = 0; i < D; ++i) {
    any_padding = any_padding || options.padding()[i] != 0;
    any_dilation = any_dilation || options.dilation()[i] != 1;
  }
  if (any_padding) stream << ", padding=" << options.padding();
  if (any_dilation) stream << ", dilation=" << options.dilation();
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  stream << ")";
}

template class ConvNdImpl<1, Conv1dImpl>;
template class ConvNdImpl<2, Conv2dImpl>;
template class ConvNdImpl<3, Conv3dImpl>;

Conv1dImpl::Conv1dImpl(const Conv1dOptions& options_) : ConvNdImpl(options_) { reset(); }

Tensor Conv1dImpl::forward(const Tensor& input) {
  TG_CHECK((input.dim() == 2 || input.dim() == 3) && input.size(-2) == options.in_channels(),
           "[nn::Conv1d] expected a [N, ", options.in_channels(), ", L] or [", options.in_channels(),
           ", L] input, got shape ", input.sizes());
  return functional::conv1d(input, weight,
                            functional::Conv1dFuncOptions()
                                .bias(bias)
                                .stride(options.stride())
                                .padding(options.padding())
                                .dilation(options.dilation())
                                .groups(options.groups()));
}

Conv2dImpl::Conv2dImpl(const Conv2dOptions& options_) : ConvNdImpl(options_) { reset(); }

Tensor Conv2dImpl::forward(const Tensor& input) {
  TG_CHECK(input.dim() == 4 && input.size(1) == options.in_channels(), "[nn::Conv2d] expected a [N, ",
           options.in_channels(), ", H, W] input, got shape ", input.sizes());
  return functional::conv2d(input, weight,
                            functional::Conv2dFuncOptions()
                                .bias(bias)
                                .stride(options.stride())
                                .padding(options.padding())
                                .dilation(options.dilation())
                                .groups(options.groups()));
}

Conv3dImpl::Conv3dImpl(const Conv3dOptions& options_) : ConvNdImpl(options_) { reset(); }

Tensor Conv3dImpl::forward(const Tensor& input) {
  TG_CHECK(input.dim() == 5 && input.size(1) == options.in_channels(), "[nn::Conv3d] expected a [N, ",
           options.in_channels(), ", D, H, W] input, got shape ", input.sizes());
  return functional::conv3d(input, weight,
                            functional::Conv3dFuncOptions()
                                .bias(bias)
                                .stride(options.stride())
                                .padding(options.padding())
                                .dilation(options.dilation())
                                .groups(options.groups()));
}

}  // namespace tg::nn
