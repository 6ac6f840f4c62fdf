// Loss modules (MSELoss, L1Loss, NLLLoss, CrossEntropyLoss), as LibTorch's: options in, a
// scalar (or per-element, with kNone) loss out of forward(input, target).
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/functional/loss.h"
#include "nn/module_holder.h"

namespace tg::nn {

// One loss module: `Options` and the function it applies; Derived::kName is what prints.
template <typename Derived, typename Options, Tensor (*Function)(const Tensor&, const Tensor&, const Options&)>
class LossImpl : public Cloneable<Derived> {
 public:
  explicit LossImpl(Options options_ = {}) : options(std::move(options_)) {}
  void reset() override {}
  Tensor forward(const Tensor& input, const Tensor& target) { return Function(input, target, options); }
  void pretty_print(std::ostream& stream) const override { stream << "tg::nn::" << Derived::kName << "()"; }

  Options options;
};

class MSELossImpl : public LossImpl<MSELossImpl, MSELossOptions, functional::mse_loss> {
 public:
  static constexpr const char* kName = "MSELoss";
  using LossImpl::LossImpl;
};
TG_MODULE(MSELoss);

class L1LossImpl : public LossImpl<L1LossImpl, L1LossOptions, functional::l1_loss> {
 public:
  static constexpr const char* kName = "L1Loss";
  using LossImpl::LossImpl;
};
TG_MODULE(L1Loss);

class NLLLossImpl : public LossImpl<NLLLossImpl, NLLLossOptions, functional::nll_loss> {
 public:
  static constexpr const char* kName = "NLLLoss";
  using LossImpl::LossImpl;
};
TG_MODULE(NLLLoss);

class CrossEntropyLossImpl : public LossImpl<CrossEntropyLossImpl, CrossEntropyLossOptions, functional::cross_entropy> {
 public:
  static constexpr const char* kName = "CrossEntropyLoss";
  using LossImpl::LossImpl;
};
TG_MODULE(CrossEntropyLoss);

}  // namespace tg::nn
