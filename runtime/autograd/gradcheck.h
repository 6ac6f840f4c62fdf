// gradcheck: compares the gradients autograd computes with central finite differences, as
// torch.autograd.gradcheck does. Inputs should be float64 tensors that require grad; the
// function may return several tensors. gradgradcheck does the same for the gradient
// function itself (second derivatives, through create_graph).
#pragma once

#include <functional>
#include <string>

#include "autograd/node.h"

namespace tg::autograd {

struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-3;
};

struct GradcheckResult {
  bool ok = true;
  std::string message;  // which output, input and element disagreed, with both values
  explicit operator bool() const { return ok; }
};

using DifferentiableFunction = std::function<variable_list(const variable_list&)>;

GradcheckResult gradcheck(const DifferentiableFunction& fn, const variable_list& inputs,
                          const GradcheckOptions& options = {});
GradcheckResult gradgradcheck(const DifferentiableFunction& fn, const variable_list& inputs,
                              const GradcheckOptions& options = {});

}  // namespace tg::autograd
