// Functional: a module that wraps a function of a tensor (Sequential(Linear(2, 3),
// Functional(tg::relu))), as LibTorch's torch::nn::Functional; extra arguments given at
// construction are passed after the input. It has no parameters.
#pragma once

#include <functional>
#include <ostream>
#include <utility>

#include "nn/cloneable.h"
#include "nn/module_holder.h"

namespace tg::nn {

class FunctionalImpl : public Cloneable<FunctionalImpl> {
 public:
  using Function = std::function<Tensor(Tensor)>;

  explicit FunctionalImpl(Function function) : function_(std::move(function)) {}
  template <typename F, typename Head, typename... Tail>
  FunctionalImpl(F function, Head head, Tail... tail)
      : function_([function, head, tail...](Tensor input) { return function(std::move(input), head, tail...); }) {}

  void reset() override {}
  Tensor forward(Tensor input) { return function_(std::move(input)); }
  Tensor operator()(Tensor input) { return forward(std::move(input)); }
  void pretty_print(std::ostream& stream) const override { stream << "tg::nn::Functional()"; }

 private:
  Function function_;
};
TG_MODULE(Functional);

}  // namespace tg::nn
