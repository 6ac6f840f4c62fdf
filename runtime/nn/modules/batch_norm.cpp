#include "nn/modules/batch_norm.h"

#include <ostream>

#include "autograd/grad_mode.h"
#include "nn/init.h"
#include "tensorgen/ops.h"

namespace tg::nn {

template <size_t D, typename Derived>
void BatchNormImplBase<D, Derived>::reset() {
  const int64_t features = options.num_features();
  if (options.affine()) {
    weight = this->register_parameter("weight", tg::empty({features}));
    bias = this->register_parameter("bias", tg::empty({features}));
  } else {
    weight = this->register_parameter("weight", Tensor(), false);
    bias = this->register_parameter("bias", Tensor(), false);
  }
  if (options.track_running_stats()) {
    running_mean = this->register_buffer("running_mean", tg::zeros({features}));
    running_var = this->register_buffer("running_var", tg::ones({features}));
    num_batches_tracked = this->register_buffer("num_batches_tracked", tg::zeros({}, TensorOptions().dtype(kLong)));
  } else {
    running_mean = this->register_buffer("running_mean", Tensor());
    running_var = this->register_buffer("running_var", Tensor());
    num_batches_tracked = this->register_buffer("num_batches_tracked", Tensor());
  }
  reset_parameters();
}

template <size_t D, typename Derived>
void BatchNormImplBase<D, Derived>::reset_running_stats() {
  if (!options.track_running_stats()) return;
  NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

template <size_t D, typename Derived>
void BatchNormImplBase<D, Derived>::reset_parameters() {
  reset_running_stats();
  if (!options.affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

template <size_t D, typename Derived>
void BatchNormImplBase<D, Derived>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "tg::nn::BatchNorm" << D << "d(" << options.num_features() << ", eps=" << options.eps()
         << ", momentum=";
  if (options.momentum()) {
    stream << *options.momentum();
  } else {
    stream << "None";
  }
  stream << ", affine=" << options.affine() << ", track_running_stats=" << options.track_running_stats() << ")";
}

template <size_t D, typename Derived>
Tensor BatchNormImplBase<D, Derived>::forward(const Tensor& input) {
  const int64_t rank = static_cast<int64_t>(D) + 2;
  if (D == 1) {
    TG_CHECK_VALUE(input.dim() == 2 || input.dim() == 3, "[nn::BatchNorm1d] expected 2D or 3D input (got ",
                   input.dim(), "D input)");
  } else {
    TG_CHECK_VALUE(input.dim() == rank, "[nn::BatchNorm", D, "d] expected ", rank, "D input (got ", input.dim(),
                   "D input)");
  }
  TG_CHECK_VALUE(input.size(1) == options.num_features(), "[nn::BatchNorm", D, "d] expected ",
                 options.num_features(), " channels (dim 1), got an input of shape ", input.sizes());
  double factor = options.momentum().value_or(0.0);
  if (this->is_training() && options.track_running_stats()) {
    NoGradGuard no_grad;
    num_batches_tracked.add_(1);
    // No momentum: the cumulative average of every batch seen so far.
    if (!options.momentum()) factor = 1.0 / static_cast<double>(num_batches_tracked.template item<int64_t>());
  }
  auto maybe = [](const Tensor& tensor) { return tensor.defined() ? std::optional<Tensor>(tensor) : std::nullopt; };
  // Without running statistics, eval normalizes by the batch's too (LibTorch's bn_training).
  const bool use_batch_stats = this->is_training() || !options.track_running_stats();
  return tg::batch_norm(input, maybe(weight), maybe(bias), maybe(running_mean), maybe(running_var), use_batch_stats,
                        factor, options.eps(), /*cudnn_enabled=*/true);
}

template class BatchNormImplBase<1, BatchNorm1dImpl>;
template class BatchNormImplBase<2, BatchNorm2dImpl>;
template class BatchNormImplBase<3, BatchNorm3dImpl>;

}  // namespace tg::nn
