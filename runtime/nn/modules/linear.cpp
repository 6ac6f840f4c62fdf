#include "nn/modules/linear.h"

#include <cmath>
#include <ostream>

#include "nn/functional/linear.h"
#include "nn/init.h"
#include "tensorgen/ops.h"

namespace tg::nn {

LinearImpl::LinearImpl(const LinearOptions& options_) : options(options_) {
  TG_CHECK(options.in_features() >= 0 && options.out_features() >= 0,
           "[nn::Linear] in_features and out_features must be non-negative, got ", options.in_features(), " and ",
           options.out_features());
  reset();
}

void LinearImpl::reset() {
  weight = register_parameter("weight", tg::empty({options.out_features(), options.in_features()}));
  bias = register_parameter("bias", options.bias() ? tg::empty({options.out_features()}) : Tensor(),
                            /*requires_grad=*/options.bias());
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  // kaiming_uniform_(a = sqrt(5)) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)), as LibTorch does.
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined() && options.in_features() > 0) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(options.in_features()));
    init::uniform_(bias, -bound, bound);
  }
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "tg::nn::Linear(in_features=" << options.in_features()
         << ", out_features=" << options.out_features() << ", bias=" << options.bias() << ")";
}

Tensor LinearImpl::forward(const Tensor& input) {
  TG_CHECK(input.dim() >= 1 && input.size(-1) == options.in_features(), "[nn::Linear] expected an input whose last size is ",
           options.in_features(), ", got shape ", input.sizes());
  return functional::linear(input, weight, bias);
}

BilinearImpl::BilinearImpl(const BilinearOptions& options_) : options(options_) { reset(); }

void BilinearImpl::reset() {
  weight = register_parameter(
      "weight", tg::empty({options.out_features(), options.in1_features(), options.in2_features()}));
  bias = register_parameter("bias", options.bias() ? tg::empty({options.out_features()}) : Tensor(), options.bias());
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  const double bound = 1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(weight.size(1), 1)));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

void BilinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "tg::nn::Bilinear(in1_features=" << options.in1_features()
         << ", in2_features=" << options.in2_features() << ", out_features=" << options.out_features()
         << ", bias=" << options.bias() << ")";
}

Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  return functional::bilinear(input1, input2, weight, bias);
}

FlattenImpl::FlattenImpl(const FlattenOptions& options_) : options(options_) {}

void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << "tg::nn::Flatten(start_dim=" << options.start_dim() << ", end_dim=" << options.end_dim() << ")";
}

Tensor FlattenImpl::forward(const Tensor& input) { return input.flatten(options.start_dim(), options.end_dim()); }

void IdentityImpl::pretty_print(std::ostream& stream) const { stream << "tg::nn::Identity()"; }

}  // namespace tg::nn
