// Dropout2d, Dropout3d (zero whole channels) and AlphaDropout (SELU's dropout), as LibTorch's:
// active while training, the identity in eval mode.
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/functional/feature_dropout.h"
#include "nn/module_holder.h"

namespace tg::nn {

// What the three share: options, the check of p, printing under Derived::kName.
template <typename Derived>
class DropoutVariantImpl : public Cloneable<Derived> {
 public:
  explicit DropoutVariantImpl(const DropoutOptions& options_) : options(options_) { reset(); }

  void reset() override {
    TG_CHECK_VALUE(options.p() >= 0 && options.p() <= 1, "[nn::", Derived::kName,
                   "] dropout probability has to be between 0 and 1, but got ", options.p());
  }
  void pretty_print(std::ostream& stream) const override {
    stream << std::boolalpha << "tg::nn::" << Derived::kName << "(p=" << options.p() << ", inplace=" << options.inplace()
           << ")";
  }

  DropoutOptions options;
};

class Dropout2dImpl : public DropoutVariantImpl<Dropout2dImpl> {
 public:
  static constexpr const char* kName = "Dropout2d";
  explicit Dropout2dImpl(const DropoutOptions& options = {}) : DropoutVariantImpl(options) {}
  explicit Dropout2dImpl(double p) : Dropout2dImpl(DropoutOptions(p)) {}
  Tensor forward(Tensor input) {
    return functional::dropout2d(std::move(input), functional::Dropout2dFuncOptions().p(options.p()).training(
                                                       is_training()).inplace(options.inplace()));
  }
};
TG_MODULE(Dropout2d);

class Dropout3dImpl : public DropoutVariantImpl<Dropout3dImpl> {
 public:
  static constexpr const char* kName = "Dropout3d";
  explicit Dropout3dImpl(const DropoutOptions& options = {}) : DropoutVariantImpl(options) {}
  explicit Dropout3dImpl(double p) : Dropout3dImpl(DropoutOptions(p)) {}
  Tensor forward(Tensor input) {
    return functional::dropout3d(std::move(input), functional::Dropout3dFuncOptions().p(options.p()).training(
                                                       is_training()).inplace(options.inplace()));
  }
};
TG_MODULE(Dropout3d);

class AlphaDropoutImpl : public DropoutVariantImpl<AlphaDropoutImpl> {
 public:
  static constexpr const char* kName = "AlphaDropout";
  explicit AlphaDropoutImpl(const DropoutOptions& options = {}) : DropoutVariantImpl(options) {}
  explicit AlphaDropoutImpl(double p) : AlphaDropoutImpl(DropoutOptions(p)) {}
  Tensor forward(Tensor input) {
    return functional::alpha_dropout(std::move(input), functional::AlphaDropoutFuncOptions().p(options.p()).training(
                                                           is_training()).inplace(options.inplace()));
  }
};
TG_MODULE(AlphaDropout);

}  // namespace tg::nn
