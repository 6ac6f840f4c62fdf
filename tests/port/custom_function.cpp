// Port program 4: custom autograd functions written as LibTorch's torch::autograd::Function<T>:
// forward with ctx->save_for_backward and ctx->saved_data, an in-place forward (mark_dirty,
// saving its output), an output without gradient (mark_non_differentiable), needs_input_grad
// in backward. Every gradient is checked against the analytic one and central finite
// differences, in double.
#include <functional>

#include "port.h"

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

namespace {

// y = scale x^3 + shift x: the tensor is saved with save_for_backward, the doubles in saved_data.
struct ScaledCube : public torch::autograd::Function<ScaledCube> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, double scale, double shift) {
    ctx->save_for_backward({x});
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["shift"] = shift;
    return x * x * x * scale + x * shift;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad) {
    const auto x = ctx->get_saved_variables()[0];
    const double scale = ctx->saved_data["scale"].toDouble();
    const double shift = ctx->saved_data["shift"].toDouble();
    // One gradient per forward argument: undefined for the two doubles.
    return {grad[0] * (x * x * (3.0 * scale) + shift), torch::Tensor(), torch::Tensor()};
  }
};

int skipped_gradients = 0;  // backward calls that skipped an input nobody needs

// z = a b + tanh(a), two tensor inputs; backward computes only the gradients needed.
struct MulTanh : public torch::autograd::Function<MulTanh> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor a, torch::Tensor b) {
    ctx->save_for_backward({a, b});
    return a * b + torch::tanh(a);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad) {
    const auto saved = ctx->get_saved_variables();
    torch::Tensor grad_a, grad_b;
    if (ctx->needs_input_grad(0)) grad_a = grad[0] * (saved[1] + 1.0 - torch::tanh(saved[0]) * torch::tanh(saved[0]));
    if (ctx->needs_input_grad(1)) {
      grad_b = grad[0] * saved[0];
    } else {
      ++skipped_gradients;
    }
    return {grad_a, grad_b};
  }
};

// exp in place: the input is marked dirty and becomes the output, which backward reads.
struct ExpInPlace : public torch::autograd::Function<ExpInPlace> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x) {
    x.exp_();
    ctx->mark_dirty({x});
    ctx->save_for_backward({x});
    return x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad) {
    return {grad[0] * ctx->get_saved_variables()[0]};
  }
};

// clamp to [-0.5, 0.5] and the mask of the elements inside, which has no gradient.
struct ClampWithMask : public torch::autograd::Function<ClampWithMask> {
  static variable_list forward(AutogradContext* ctx, torch::Tensor x) {
    const auto mask = torch::abs(x).le(0.5).to(x.scalar_type());
    ctx->mark_non_differentiable({mask});
    ctx->save_for_backward({mask});
    return {torch::clamp(x, -0.5, 0.5), mask};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad) {
    return {grad[0] * ctx->get_saved_variables()[0]};
  }
};

constexpr int64_t kSize = 6;

// Deterministic inputs and output weights (no random generator: both builds see the same numbers).
torch::Tensor wave(double step, double phase) {
  return torch::tanh(torch::arange(kSize, torch::kDouble) * step + (phase - 2.0));
}

double element(const torch::Tensor& t, int64_t i) { return t.select(0, i).item<double>(); }

// The largest |computed - expected| and |computed - central finite difference of loss at x|.
void check_gradient(const std::string& name, const torch::Tensor& computed, const torch::Tensor& expected,
                    const std::function<double(const torch::Tensor&)>& loss, const torch::Tensor& x) {
  torch::NoGradGuard no_grad;
  const double eps = 1e-5;
  double vs_analytic = 0, vs_difference = 0;
  for (int64_t i = 0; i < kSize; ++i) {
    const auto direction = torch::arange(kSize, torch::kDouble).eq(static_cast<double>(i)).to(torch::kDouble) * eps;
    const double difference = (loss(x + direction) - loss(x - direction)) / (2 * eps);
    vs_analytic = std::max(vs_analytic, std::abs(element(computed, i) - element(expected, i)));
    vs_difference = std::max(vs_difference, std::abs(element(computed, i) - difference));
    port::report(name + ".grad." + std::to_string(i), element(computed, i));
  }
  port::report(name + ".error_vs_analytic", vs_analytic);
  port::report(name + ".error_vs_finite_difference", vs_difference);
}

}  // namespace

int main() {
  const auto weights = wave(1.1, 0.2);  // loss = sum(weights * f(x))

  {  // save_for_backward and saved_data
    const auto x = wave(0.7, 0.3).requires_grad_();
    auto loss = [&](const torch::Tensor& input) { return (ScaledCube::apply(input, 1.5, -0.25) * weights).sum(); };
    loss(x).backward();
    const auto expected = weights * (x.detach() * x.detach() * 4.5 - 0.25);
    check_gradient("scaled_cube", x.grad(), expected, [&](const torch::Tensor& t) { return loss(t).item<double>(); },
                   x.detach());
  }

  {  // two inputs, then needs_input_grad with one input not requiring grad
    const auto a = wave(0.9, -0.4).requires_grad_();
    const auto b = wave(0.5, 1.0).requires_grad_();
    (MulTanh::apply(a, b) * weights).sum().backward();
    const auto ad = a.detach(), bd = b.detach();
    check_gradient("mul_tanh.a", a.grad(), weights * (bd + 1.0 - torch::tanh(ad) * torch::tanh(ad)),
                   [&](const torch::Tensor& t) { return (MulTanh::apply(t, bd) * weights).sum().item<double>(); }, ad);
    check_gradient("mul_tanh.b", b.grad(), weights * ad,
                   [&](const torch::Tensor& t) { return (MulTanh::apply(ad, t) * weights).sum().item<double>(); }, bd);
    const auto c = wave(0.9, -0.4).requires_grad_();
    (MulTanh::apply(c, bd) * weights).sum().backward();
    port::report("mul_tanh.skipped_gradients", skipped_gradients);
  }

  {  // mark_dirty: the result is the input tensor itself, its history rebased
    const auto leaf = wave(0.6, 0.1).requires_grad_();
    auto x = leaf * 1.0;
    const auto y = ExpInPlace::apply(x);
    port::report("exp_inplace.output_is_input", y.is_same(x) ? 1 : 0);
    (y * weights).sum().backward();
    check_gradient("exp_inplace", leaf.grad(), weights * torch::exp(leaf.detach()),
                   [&](const torch::Tensor& t) { return (ExpInPlace::apply(t.clone()) * weights).sum().item<double>(); },
                   leaf.detach());
  }

  {  // mark_non_differentiable
    const auto x = (wave(0.8, 0.5) * 0.8).requires_grad_();
    const auto outputs = ClampWithMask::apply(x);
    port::report("clamp.value_requires_grad", outputs[0].requires_grad() ? 1 : 0);
    port::report("clamp.mask_requires_grad", outputs[1].requires_grad() ? 1 : 0);
    port::report("clamp.inside", outputs[1].sum().item<double>());
    (outputs[0] * weights).sum().backward();
    check_gradient("clamp", x.grad(), weights * outputs[1],
                   [&](const torch::Tensor& t) { return (ClampWithMask::apply(t)[0] * weights).sum().item<double>(); },
                   x.detach());
  }
  return 0;
}
