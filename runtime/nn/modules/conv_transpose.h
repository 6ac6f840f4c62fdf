// ConvTranspose1d/2d/3d modules, as LibTorch's: weight [in, out / groups, k...], bias [out],
// both drawn from U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = out / groups * prod(k) (the
// weight's dim 1 times its kernel, as LibTorch computes it).
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/conv_transpose.h"

namespace tg::nn {

template <size_t D, typename Derived>
class ConvTransposeNdImpl : public Cloneable<Derived> {
 public:
  explicit ConvTransposeNdImpl(const ConvTransposeOptions<D>& options_);

  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // input [N, in, *spatial] or [in, *spatial].
  Tensor forward(const Tensor& input);

  ConvTransposeOptions<D> options;
  Tensor weight;
  Tensor bias;
};

class ConvTranspose1dImpl : public ConvTransposeNdImpl<1, ConvTranspose1dImpl> {
 public:
  ConvTranspose1dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<1> kernel_size)
      : ConvTranspose1dImpl(ConvTranspose1dOptions(input_channels, output_channels, kernel_size)) {}
  explicit ConvTranspose1dImpl(const ConvTranspose1dOptions& options) : ConvTransposeNdImpl(options) {}
};
TG_MODULE(ConvTranspose1d);

class ConvTranspose2dImpl : public ConvTransposeNdImpl<2, ConvTranspose2dImpl> {
 public:
  ConvTranspose2dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<2> kernel_size)
      : ConvTranspose2dImpl(ConvTranspose2dOptions(input_channels, output_channels, kernel_size)) {}
  explicit ConvTranspose2dImpl(const ConvTranspose2dOptions& options) : ConvTransposeNdImpl(options) {}
};
TG_MODULE(ConvTranspose2d);

class ConvTranspose3dImpl : public ConvTransposeNdImpl<3, ConvTranspose3dImpl> {
 public:
  ConvTranspose3dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<3> kernel_size)
      : ConvTranspose3dImpl(ConvTranspose3dOptions(input_channels, output_channels, kernel_size)) {}
  explicit ConvTranspose3dImpl(const ConvTranspose3dOptions& options) : ConvTransposeNdImpl(options) {}
};
TG_MODULE(ConvTranspose3d);

extern template class ConvTransposeNdImpl<1, ConvTranspose1dImpl>;
extern template class ConvTransposeNdImpl<2, ConvTranspose2dImpl>;
extern template class ConvTransposeNdImpl<3, ConvTranspose3dImpl>;

}  // namespace tg::nn
