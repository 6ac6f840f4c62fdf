#include "autograd/gradcheck.h"

#include <cmath>
#include <sstream>

#include "Functions.h"
#include "TensorMethods.h"
#include "autograd/autograd.h"
#include "ops/scalar_tensor.h"

namespace tg::autograd {

namespace {

// Element k of a tensor as double, whatever its layout and device.
double element(const Tensor& t, int64_t k) {
  Tensor flat = t.reshape({-1});
  return flat.select(0, k).item<double>();
}

// Runs fn on copies of the inputs with element `k` of input `i` shifted by `delta`.
variable_list evaluate_shifted(const DifferentiableFunction& fn, const variable_list& inputs, size_t i, int64_t k,
                               double delta) {
  NoGradGuard no_grad;
  variable_list shifted;
  for (size_t j = 0; j < inputs.size(); ++j) {
    Tensor copy = inputs[j].detach().clone();
    if (j == i) {
      Tensor flat = copy.view({-1});
      flat.select(0, k).fill_(element(flat, k) + delta);
    }
    shifted.push_back(copy);
  }
  return fn(shifted);
}

bool differentiable(const Tensor& t) { return t.defined() && t.is_floating_point(); }

}  // namespace

GradcheckResult gradcheck(const DifferentiableFunction& fn, const variable_list& inputs,
                          const GradcheckOptions& options) {
  variable_list outputs = fn(inputs);
  variable_list wrt;
  std::vector<size_t> wrt_index;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].defined() && inputs[i].requires_grad()) {
      wrt.push_back(inputs[i]);
      wrt_index.push_back(i);
    }
  }
  GradcheckResult result;
  if (wrt.empty()) return {false, "gradcheck: no input requires grad"};
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Tensor& out = outputs[o];
    if (!differentiable(out)) continue;
    for (int64_t j = 0; j < out.numel(); ++j) {
      // Row j of the analytical Jacobian: the gradient of out[j] with respect to each input.
      Tensor one_hot = tg::zeros_like(out);
      one_hot.view({-1}).select(0, j).fill_(1);
      variable_list analytical;
      if (out.requires_grad()) {
        analytical = grad({out}, wrt, {one_hot}, /*retain_graph=*/true, /*create_graph=*/false, /*allow_unused=*/true);
      } else {
        analytical.resize(wrt.size());
      }
      for (size_t w = 0; w < wrt.size(); ++w) {
        for (int64_t k = 0; k < wrt[w].numel(); ++k) {
          double plus = element(evaluate_shifted(fn, inputs, wrt_index[w], k, options.eps)[o], j);
          double minus = element(evaluate_shifted(fn, inputs, wrt_index[w], k, -options.eps)[o], j);
          double numerical = (plus - minus) / (2 * options.eps);
          double analytic = analytical[w].defined() ? element(analytical[w], k) : 0.0;
          if (std::fabs(analytic - numerical) > options.atol + options.rtol * std::fabs(numerical)) {
            std::ostringstream message;
            message << "gradcheck: Jacobian mismatch for output " << o << " element " << j << " with respect to input "
                    << wrt_index[w] << " element " << k << ": numerical " << numerical << ", analytical " << analytic;
            return {false, message.str()};
          }
        }
      }
    }
  }
  return result;
}

namespace {

// d(outputs)/d(inputs) contracted with `grad_outputs`, recorded so that it can itself be
// differentiated. Finite differences call it under no-grad with plain copies of the
// inputs; it then makes them leaves of its own, which is enough to get the values.
variable_list first_derivative(const DifferentiableFunction& fn, const variable_list& xs,
                               const variable_list& grad_outputs, const std::vector<bool>& wants_grad) {
  AutoGradMode enable(true);
  variable_list leaves;
  variable_list wrt;
  for (size_t i = 0; i < xs.size(); ++i) {
    bool needs_leaf = wants_grad[i] && !xs[i].requires_grad();
    leaves.push_back(needs_leaf ? xs[i].detach().requires_grad_(true) : xs[i]);
    if (wants_grad[i]) wrt.push_back(leaves.back());
  }
  variable_list outs;
  for (const Tensor& out : fn(leaves)) {
    if (differentiable(out)) outs.push_back(out);
  }
  variable_list grads = grad(outs, wrt, grad_outputs, /*retain_graph=*/true, /*create_graph=*/true,
                             /*allow_unused=*/true);
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined()) grads[i] = tg::zeros_like(wrt[i]);
  }
  return grads;
}

}  // namespace

GradcheckResult gradgradcheck(const DifferentiableFunction& fn, const variable_list& inputs,
                              const GradcheckOptions& options) {
  std::vector<bool> wants_grad;
  for (const Tensor& x : inputs) wants_grad.push_back(x.defined() && x.requires_grad());
  // Random grad_outputs that also require grad: the gradient is differentiable in them too.
  variable_list grad_outputs;
  for (const Tensor& out : fn(inputs)) {
    if (differentiable(out)) grad_outputs.push_back(tg::randn(out.sizes(), out.options()).requires_grad_(true));
  }
  const size_t n = inputs.size();
  DifferentiableFunction gradient_function = [&](const variable_list& args) {
    variable_list xs(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(n));
    variable_list gs(args.begin() + static_cast<std::ptrdiff_t>(n), args.end());
    return first_derivative(fn, xs, gs, wants_grad);
  };
  variable_list args(inputs.begin(), inputs.end());
  args.insert(args.end(), grad_outputs.begin(), grad_outputs.end());
  return gradcheck(gradient_function, args, options);
}

}  // namespace tg::autograd
