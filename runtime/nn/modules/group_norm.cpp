#include "nn/modules/group_norm.h"

#include <ostream>

#include "nn/functional/batch_norm.h"
#include "nn/init.h"
#include "tensorgen/ops.h"

namespace tg::nn {

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options_) : options(options_) {
  TG_CHECK_VALUE(options.num_groups() > 0 && options.num_channels() % options.num_groups() == 0,
                 "[nn::GroupNorm] expected num_channels (", options.num_channels(),
                 ") to be divisible by num_groups (", options.num_groups(), ")");
  reset();
}

void GroupNormImpl::reset() {
  if (options.affine()) {
    weight = register_parameter("weight", tg::empty({options.num_channels()}));
    bias = register_parameter("bias", tg::empty({options.num_channels()}));
  } else {
    weight = register_parameter("weight", Tensor(), false);
    bias = register_parameter("bias", Tensor(), false);
  }
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (!options.affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

void GroupNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "tg::nn::GroupNorm(" << options.num_groups() << ", " << options.num_channels()
         << ", eps=" << options.eps() << ", affine=" << options.affine() << ")";
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return functional::group_norm(
      input, functional::GroupNormFuncOptions(options.num_groups()).weight(weight).bias(bias).eps(options.eps()));
}

}  // namespace tg::nn
