// Linear, Bilinear, Flatten and Identity modules, as LibTorch's (torch/nn/modules/linear.h).
// Linear: y = x W^T + b with W [out, in], b [out]; both drawn from U(-1/sqrt(in), 1/sqrt(in)).
#pragma once

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/linear.h"

namespace tg::nn {

class LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features) : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);

  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  LinearOptions options;
  Tensor weight;  // [out_features, in_features]
  Tensor bias;    // [out_features], undefined without bias
};
TG_MODULE(Linear);

class BilinearImpl : public Cloneable<BilinearImpl> {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : BilinearImpl(BilinearOptions(in1_features, in2_features, out_features)) {}
  explicit BilinearImpl(const BilinearOptions& options);

  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input1, const Tensor& input2);

  BilinearOptions options;
  Tensor weight;  // [out_features, in1_features, in2_features]
  Tensor bias;    // [out_features]
};
TG_MODULE(Bilinear);

class FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {});
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  FlattenOptions options;
};
TG_MODULE(Flatten);

class IdentityImpl : public Cloneable<IdentityImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return input; }
};
TG_MODULE(Identity);

}  // namespace tg::nn
