// Dropout, as LibTorch's: zeroes elements with probability p and scales the rest by 1/(1-p)
// while training; the identity in eval mode.
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/functional/dropout.h"
#include "nn/module_holder.h"

namespace tg::nn {

class DropoutImpl : public Cloneable<DropoutImpl> {
 public:
  explicit DropoutImpl(const DropoutOptions& options_ = {}) : options(options_) { reset(); }
  explicit DropoutImpl(double p) : DropoutImpl(DropoutOptions(p)) {}

  void reset() override {
    TG_CHECK(options.p() >= 0 && options.p() <= 1, "[nn::Dropout] dropout probability has to be between 0 and 1, but got ",
             options.p());
  }
  Tensor forward(Tensor input) {
    return functional::dropout(std::move(input),
                               functional::DropoutFuncOptions().p(options.p()).training(is_training()).inplace(options.inplace()));
  }
  void pretty_print(std::ostream& stream) const override {
    stream << std::boolalpha << "tg::nn::Dropout(p=" << options.p() << ", inplace=" << options.inplace() << ")";
  }

  DropoutOptions options;
};
TG_MODULE(Dropout);

}  // namespace tg::nn
