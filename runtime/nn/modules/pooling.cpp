#include "nn/modules/pooling.h"

#include <sstream>

namespace tg::nn {
namespace {

template <size_t D>
std::string describe_options(const MaxPoolOptions<D>& o) {
  std::ostringstream out;
  out << std::boolalpha << "kernel_size=" << o.kernel_size() << ", stride=" << o.stride() << ", padding=" << o.padding()
      << ", dilation=" << o.dilation() << ", ceil_mode=" << o.ceil_mode();
  return out.str();
}

template <size_t D>
std::string describe_options(const AvgPoolOptions<D>& o) {
  std::ostringstream out;
  out << "kernel_size=" << o.kernel_size() << ", stride=" << o.stride() << ", padding=" << o.padding();
  return out.str();
}

template <size_t D>
std::string describe_options(const AdaptiveAvgPoolOptions<D>& o) {
  std::ostringstream out;
  out << "output_size=" << o.output_size();
  return out.str();
}

template <size_t D>
std::string describe_options(const AdaptiveMaxPoolOptions<D>& o) {
  std::ostringstream out;
  out << "output_size=" << o.output_size();
  return out.str();
}

}  // namespace

template <typename Derived, size_t D, typename Options, Tensor (*Function)(const Tensor&, const Options&)>
std::string PoolImpl<Derived, D, Options, Function>::describe() const {
  return describe_options(options);
}

template class PoolImpl<MaxPool1dImpl, 1, MaxPool1dOptions, functional::max_pool1d>;
template class PoolImpl<MaxPool2dImpl, 2, MaxPool2dOptions, functional::max_pool2d>;
template class PoolImpl<MaxPool3dImpl, 3, MaxPool3dOptions, functional::max_pool3d>;
template class PoolImpl<AdaptiveMaxPool1dImpl, 1, AdaptiveMaxPool1dOptions, functional::adaptive_max_pool1d>;
template class PoolImpl<AdaptiveMaxPool2dImpl, 2, AdaptiveMaxPool2dOptions, functional::adaptive_max_pool2d>;
template class PoolImpl<AdaptiveMaxPool3dImpl, 3, AdaptiveMaxPool3dOptions, functional::adaptive_max_pool3d>;
template class PoolImpl<AvgPool1dImpl, 1, AvgPool1dOptions, functional::avg_pool1d>;
template class PoolImpl<AvgPool2dImpl, 2, AvgPool2dOptions, functional::avg_pool2d>;
template class PoolImpl<AvgPool3dImpl, 3, AvgPool3dOptions, functional::avg_pool3d>;
template class PoolImpl<AdaptiveAvgPool1dImpl, 1, AdaptiveAvgPool1dOptions, functional::adaptive_avg_pool1d>;
template class PoolImpl<AdaptiveAvgPool2dImpl, 2, AdaptiveAvgPool2dOptions, functional::adaptive_avg_pool2d>;
template class PoolImpl<AdaptiveAvgPool3dImpl, 3, AdaptiveAvgPool3dOptions, functional::adaptive_avg_pool3d>;

}  // namespace tg::nn
