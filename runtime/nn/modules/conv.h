// Conv1d, Conv2d and Conv3d modules, as LibTorch's: weight [out, in / groups, k...], bias [out],
// both drawn from U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = in / groups * prod(k).
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/conv.h"

namespace tg::nn {

// What Conv1dImpl, Conv2dImpl and Conv3dImpl share: parameters, initialisation, printing.
template <size_t D, typename Derived>
class ConvNdImpl : public Cloneable<Derived> {
 public:
  explicit ConvNdImpl(const ConvOptions<D>& options_) : options(options_) { check_options(); }

  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  ConvOptions<D> options;
  Tensor weight;
  Tensor bias;

 private:
  void check_options() const;
};

class Conv1dImpl : public ConvNdImpl<1, Conv1dImpl> {
 public:
  Conv1dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<1> kernel_size)
      : Conv1dImpl(Conv1dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv1dImpl(const Conv1dOptions& options);
  Tensor forward(const Tensor& input);
};
TG_MODULE(Conv1d);

class Conv2dImpl : public ConvNdImpl<2, Conv2dImpl> {
 public:
  Conv2dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<2> kernel_size)
      : Conv2dImpl(Conv2dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv2dImpl(const Conv2dOptions& options);
  Tensor forward(const Tensor& input);
};
TG_MODULE(Conv2d);

class Conv3dImpl : public ConvNdImpl<3, Conv3dImpl> {
 public:
  Conv3dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<3> kernel_size)
      : Conv3dImpl(Conv3dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv3dImpl(const Conv3dOptions& options);
  Tensor forward(const Tensor& input);
};
TG_MODULE(Conv3d);

}  // namespace tg::nn
