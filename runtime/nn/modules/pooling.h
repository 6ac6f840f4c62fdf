// Pooling modules (MaxPool1d/2d/3d, AvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d,
// AdaptiveAvgPool1d/2d/3d), as LibTorch's: each holds its options and calls its nn::functional
// form; none has parameters. The max pools also have LibTorch's forward_with_indices.
#pragma once

#include <ostream>
#include <tuple>

#include "nn/cloneable.h"
#include "nn/functional/pooling.h"
#include "nn/module_holder.h"

namespace tg::nn {

// One pooling module: `Options` and the function it applies; `Name` is what printing shows.
template <typename Derived, size_t D, typename Options, Tensor (*Function)(const Tensor&, const Options&)>
class PoolImpl : public Cloneable<Derived> {
 public:
  explicit PoolImpl(const Options& options_) : options(options_) {}
  // MaxPool2d(2): the kernel (or output) size alone.
  explicit PoolImpl(ExpandingArray<D> size) : options(size) {}
  void reset() override {}
  Tensor forward(const Tensor& input) { return Function(input, options); }
  void pretty_print(std::ostream& stream) const override { stream << "tg::nn::" << Derived::kName << "(" << describe() << ")"; }

  Options options;

 private:
  std::string describe() const;
};

// A max pooling module: forward_with_indices also returns each maximum's flat index.
template <typename Derived, size_t D, typename Options, Tensor (*Function)(const Tensor&, const Options&),
          std::tuple<Tensor, Tensor> (*WithIndices)(const Tensor&, const Options&)>
class MaxPoolImpl : public PoolImpl<Derived, D, Options, Function> {
 public:
  using PoolImpl<Derived, D, Options, Function>::PoolImpl;
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input) { return WithIndices(input, this->options); }
};

#define TG_POOL_MODULE(Name, D, Options, Function)                                \
  class Name##Impl : public PoolImpl<Name##Impl, D, Options, Function> {          \
   public:                                                                        \
    static constexpr const char* kName = #Name;                                   \
    using PoolImpl::PoolImpl;                                                     \
  };                                                                              \
  TG_MODULE(Name)

#define TG_MAX_POOL_MODULE(Name, D, Options, Function)                                                     \
  class Name##Impl                                                                                         \
      : public MaxPoolImpl<Name##Impl, D, Options, functional::Function, functional::Function##_with_indices> { \
   public:                                                                                                 \
    static constexpr const char* kName = #Name;                                                            \
    using MaxPoolImpl::MaxPoolImpl;                                                                        \
  };                                                                                                       \
  TG_MODULE(Name)

TG_MAX_POOL_MODULE(MaxPool1d, 1, MaxPool1dOptions, max_pool1d);
TG_MAX_POOL_MODULE(MaxPool2d, 2, MaxPool2dOptions, max_pool2d);
TG_MAX_POOL_MODULE(MaxPool3d, 3, MaxPool3dOptions, max_pool3d);
TG_MAX_POOL_MODULE(AdaptiveMaxPool1d, 1, AdaptiveMaxPool1dOptions, adaptive_max_pool1d);
TG_MAX_POOL_MODULE(AdaptiveMaxPool2d, 2, AdaptiveMaxPool2dOptions, adaptive_max_pool2d);
TG_MAX_POOL_MODULE(AdaptiveMaxPool3d, 3, AdaptiveMaxPool3dOptions, adaptive_max_pool3d);
TG_POOL_MODULE(AvgPool1d, 1, AvgPool1dOptions, functional::avg_pool1d);
TG_POOL_MODULE(AvgPool2d, 2, AvgPool2dOptions, functional::avg_pool2d);
TG_POOL_MODULE(AvgPool3d, 3, AvgPool3dOptions, functional::avg_pool3d);
TG_POOL_MODULE(AdaptiveAvgPool1d, 1, AdaptiveAvgPool1dOptions, functional::adaptive_avg_pool1d);
TG_POOL_MODULE(AdaptiveAvgPool2d, 2, AdaptiveAvgPool2dOptions, functional::adaptive_avg_pool2d);
TG_POOL_MODULE(AdaptiveAvgPool3d, 3, AdaptiveAvgPool3dOptions, functional::adaptive_avg_pool3d);

#undef TG_MAX_POOL_MODULE
#undef TG_POOL_MODULE

}  // namespace tg::nn
