// BatchNorm1d/2d/3d, as LibTorch's: weight (ones) and bias (zeros) when affine; buffers
// running_mean (zeros), running_var (ones) and num_batches_tracked (int64 0) when
// track_running_stats. Training normalizes by the batch's statistics and updates the running
// ones; eval (with track_running_stats) normalizes by the running ones.
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/batch_norm.h"

namespace tg::nn {

// What the three share. D is the number of spatial dims: the input is [N, C, *D] (1d also
// takes [N, C]).
template <size_t D, typename Derived>
class BatchNormImplBase : public Cloneable<Derived> {
 public:
  explicit BatchNormImplBase(const BatchNormOptions& options_) : options(options_) {
    TG_CHECK_VALUE(options.num_features() > 0, "[nn::BatchNorm", D, "d] expected num_features > 0, got ",
                   options.num_features());
    reset();
  }

  void reset() override;
  void reset_running_stats();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  BatchNormOptions options;
  Tensor weight;  // [num_features], undefined without affine
  Tensor bias;
  Tensor running_mean;  // [num_features], undefined without track_running_stats
  Tensor running_var;
  Tensor num_batches_tracked;  // int64 scalar
};

class BatchNorm1dImpl : public BatchNormImplBase<1, BatchNorm1dImpl> {
 public:
  explicit BatchNorm1dImpl(int64_t num_features) : BatchNorm1dImpl(BatchNormOptions(num_features)) {}
  explicit BatchNorm1dImpl(const BatchNormOptions& options) : BatchNormImplBase(options) {}
};
TG_MODULE(BatchNorm1d);

class BatchNorm2dImpl : public BatchNormImplBase<2, BatchNorm2dImpl> {
 public:
  explicit BatchNorm2dImpl(int64_t num_features) : BatchNorm2dImpl(BatchNormOptions(num_features)) {}
  explicit BatchNorm2dImpl(const BatchNormOptions& options) : BatchNormImplBase(options) {}
};
TG_MODULE(BatchNorm2d);

class BatchNorm3dImpl : public BatchNormImplBase<3, BatchNorm3dImpl> {
 public:
  explicit BatchNorm3dImpl(int64_t num_features) : BatchNorm3dImpl(BatchNormOptions(num_features)) {}
  explicit BatchNorm3dImpl(const BatchNormOptions& options) : BatchNormImplBase(options) {}
};
TG_MODULE(BatchNorm3d);

extern template class BatchNormImplBase<1, BatchNorm1dImpl>;
extern template class BatchNormImplBase<2, BatchNorm2dImpl>;
extern template class BatchNormImplBase<3, BatchNorm3dImpl>;

}  // namespace tg::nn
