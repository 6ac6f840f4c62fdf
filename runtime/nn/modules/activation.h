// Activation modules (ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid, Tanh, Softmax, LogSoftmax),
// as LibTorch's: each holds its options and calls its nn::functional form.
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/functional/activation.h"
#include "nn/module_holder.h"

namespace tg::nn {

class ReLUImpl : public Cloneable<ReLUImpl> {
 public:
  explicit ReLUImpl(const ReLUOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  Tensor forward(Tensor input) { return functional::relu(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override {
    stream << "tg::nn::ReLU(" << (options.inplace() ? "inplace=true" : "") << ")";
  }
  ReLUOptions options;
};
TG_MODULE(ReLU);

class LeakyReLUImpl : public Cloneable<LeakyReLUImpl> {
 public:
  explicit LeakyReLUImpl(const LeakyReLUOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  Tensor forward(Tensor input) { return functional::leaky_relu(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override {
    stream << "tg::nn::LeakyReLU(negative_slope=" << options.negative_slope() << ")";
  }
  LeakyReLUOptions options;
};
TG_MODULE(LeakyReLU);

class ELUImpl : public Cloneable<ELUImpl> {
 public:
  explicit ELUImpl(const ELUOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  Tensor forward(Tensor input) { return functional::elu(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override { stream << "tg::nn::ELU(alpha=" << options.alpha() << ")"; }
  ELUOptions options;
};
TG_MODULE(ELU);

class GELUImpl : public Cloneable<GELUImpl> {
 public:
  explicit GELUImpl(GELUOptions options_ = {}) : options(std::move(options_)) {}
  void reset() override {}
  Tensor forward(const Tensor& input) { return functional::gelu(input, options); }
  void pretty_print(std::ostream& stream) const override { stream << "tg::nn::GELU()"; }
  GELUOptions options;
};
TG_MODULE(GELU);

// A module without options whose forward is one function: SiLU, Sigmoid, Tanh.
template <typename Derived, Tensor (*Function)(const Tensor&)>
class StatelessActivationImpl : public Cloneable<Derived> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input) { return Function(input); }
  void pretty_print(std::ostream& stream) const override { stream << "tg::nn::" << Derived::kName << "()"; }
};

class SiLUImpl : public StatelessActivationImpl<SiLUImpl, functional::silu> {
 public:
  static constexpr const char* kName = "SiLU";
};
TG_MODULE(SiLU);

class SigmoidImpl : public StatelessActivationImpl<SigmoidImpl, functional::sigmoid> {
 public:
  static constexpr const char* kName = "Sigmoid";
};
TG_MODULE(Sigmoid);

class TanhImpl : public StatelessActivationImpl<TanhImpl, functional::tanh> {
 public:
  static constexpr const char* kName = "Tanh";
};
TG_MODULE(Tanh);

class SoftmaxImpl : public Cloneable<SoftmaxImpl> {
 public:
  explicit SoftmaxImpl(int64_t dim) : options(dim) {}
  explicit SoftmaxImpl(const SoftmaxOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) { return functional::softmax(input, options.dim()); }
  void pretty_print(std::ostream& stream) const override { stream << "tg::nn::Softmax(dim=" << options.dim() << ")"; }
  SoftmaxOptions options;
};
TG_MODULE(Softmax);

class LogSoftmaxImpl : public Cloneable<LogSoftmaxImpl> {
 public:
  explicit LogSoftmaxImpl(int64_t dim) : options(dim) {}
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) { return functional::log_softmax(input, options.dim()); }
  void pretty_print(std::ostream& stream) const override { stream << "tg::nn::LogSoftmax(dim=" << options.dim() << ")"; }
  LogSoftmaxOptions options;
};
TG_MODULE(LogSoftmax);

}  // namespace tg::nn
