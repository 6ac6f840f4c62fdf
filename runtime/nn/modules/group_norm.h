// GroupNorm, as LibTorch's: the channels of each sample split into num_groups groups, each
// normalized over its channels and positions; then (affine) scaled by weight (ones) and
// shifted by bias (zeros), per channel. The same in training and eval.
#pragma once

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/group_norm.h"

namespace tg::nn {

class GroupNormImpl : public Cloneable<GroupNormImpl> {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels) : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);

  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  GroupNormOptions options;
  Tensor weight;  // [num_channels], undefined without affine
  Tensor bias;
};
TG_MODULE(GroupNorm);

}  // namespace tg::nn
