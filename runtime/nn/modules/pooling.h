// Pooling modules (MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d), as LibTorch's: each holds
// its options and calls its nn::functional form; none has parameters.
#pragma once

#include <ostream>

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

#define TG_POOL_MODULE(Name, D, Options, Function)                                \
  class Name##Impl : public PoolImpl<Name##Impl, D, Options, Function> {          \
   public:                                                                        \
    static constexpr const char* kName = #Name;                                   \
    using PoolImpl::PoolImpl;                                                     \
  };                                                                              \
  TG_MODULE(Name)

TG_POOL_MODULE(MaxPool1d, 1, MaxPool1dOptions, functional::max_pool1d);
TG_POOL_MODULE(MaxPool2d, 2, MaxPool2dOptions, functional::max_pool2d);
TG_POOL_MODULE(AvgPool1d, 1, AvgPool1dOptions, functional::avg_pool1d);
TG_POOL_MODULE(AvgPool2d, 2, AvgPool2dOptions, functional::avg_pool2d);
TG_POOL_MODULE(AdaptiveAvgPool1d, 1, AdaptiveAvgPool1dOptions, functional::adaptive_avg_pool1d);
TG_POOL_MODULE(AdaptiveAvgPool2d, 2, AdaptiveAvgPool2dOptions, functional::adaptive_avg_pool2d);

#undef TG_POOL_MODULE

}  // namespace tg::nn
