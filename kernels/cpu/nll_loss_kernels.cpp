// CPU kernels of nll_loss_forward and nll_loss_backward over [N, C] (or [C]) inputs:
//   loss_i = -w[t_i] * self[i, t_i]  for t_i != ignore_index, 0 otherwise
//   total_weight = sum of w[t_i] over the targets not ignored (w = 1 without weight)
//   None: loss;  Sum: sum(loss);  Mean: sum(loss) / total_weight (NaN when it is 0)
// and grad_input[i, t_i] = -w[t_i] * grad (/ total_weight for Mean), 0 elsewhere.
#include <algorithm>
#include <vector>

#include "NativeFunctions.h"
#include "core/reduction.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "dtype_dispatch.h"
#include "nn_rules.h"

namespace tg {

namespace {

// Class weights converted to T (all ones when there is no weight).
template <typename T>
std::vector<T> class_weights(const std::optional<Tensor>& weight, int64_t classes) {
  std::vector<T> w(static_cast<size_t>(classes), T(1));
  if (weight && weight->defined()) {
    const Tensor contiguous = cpu::contiguous_as(*weight, kDouble);
    const double* data = contiguous.data_ptr<double>();
    for (int64_t c = 0; c < classes; ++c) w[c] = static_cast<T>(data[c]);
  }
  return w;
}

}  // namespace

void native::nll_loss_forward_out_cpu(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                      int64_t reduction, int64_t ignore_index, const Tensor& output,
                                      const Tensor& total_weight) {
  const int64_t classes = self.size(-1);
  const Tensor target_t = check_nll_targets("nll_loss", target, classes, ignore_index);
  const int64_t* targets = target_t.data_ptr<int64_t>();
  TG_DISPATCH_FLOATING_TYPES(self.scalar_type(), "nll_loss", [&] {
    using T = opmath_t<scalar_t>;
    const Tensor input = cpu::contiguous_as(self, self.scalar_type());
    const scalar_t* x = input.data_ptr<scalar_t>();
    const std::vector<double> w = class_weights<double>(weight, classes);
    double sum = 0, weight_sum = 0;
    scalar_t* losses = reduction == Reduction::None ? output.data_ptr<scalar_t>() : nullptr;
    for (int64_t i = 0; i < target_t.numel(); ++i) {
      const int64_t t = targets[i];
      double loss = 0;
      if (t != ignore_index) {
        loss = -w[t] * cpu::convert<double>(x[i * classes + t]);
        weight_sum += w[t];
      }
      if (losses != nullptr) losses[i] = cpu::convert<scalar_t>(static_cast<T>(loss));
      sum += loss;
    }
    if (reduction == Reduction::Mean) sum /= weight_sum;  // 0 / 0 is NaN, as in PyTorch
    if (reduction != Reduction::None) output.data_ptr<scalar_t>()[0] = cpu::convert<scalar_t>(static_cast<T>(sum));
    // LibTorch leaves total_weight 0 for an unreduced batch (2-d self, reduction none).
    const bool unreduced_batch = reduction == Reduction::None && self.dim() == 2;
    total_weight.data_ptr<scalar_t>()[0] = cpu::convert<scalar_t>(static_cast<T>(unreduced_batch ? 0.0 : weight_sum));
  });
}

void native::nll_loss_backward_out_cpu(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                       const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                                       const Tensor& total_weight, const Tensor& grad_input) {
  const int64_t classes = self.size(-1);
  const Tensor target_t = check_nll_targets("nll_loss_backward", target, classes, ignore_index);
  const int64_t* targets = target_t.data_ptr<int64_t>();
  TG_DISPATCH_FLOATING_TYPES(grad_input.scalar_type(), "nll_loss_backward", [&] {
    using T = opmath_t<scalar_t>;
    const Tensor grad_t = cpu::contiguous_as(grad_output, kDouble);
    const double* grad = grad_t.data_ptr<double>();
    double scale = 1.0;
    if (reduction == Reduction::Mean) scale /= cpu::contiguous_as(total_weight, kDouble).data_ptr<double>()[0];
    const std::vector<double> w = class_weights<double>(weight, classes);
    scalar_t* gx = grad_input.data_ptr<scalar_t>();
    std::fill_n(gx, grad_input.numel(), cpu::convert<scalar_t>(T(0)));
    const bool per_element = reduction == Reduction::None && self.dim() == 2;
    for (int64_t i = 0; i < target_t.numel(); ++i) {
      const int64_t t = targets[i];
      if (t == ignore_index) continue;
      const double g = per_element ? grad[i] : grad[0];
      gx[i * classes + t] = cpu::convert<scalar_t>(static_cast<T>(-w[t] * g * scale));
    }
  });
}

}  // namespace tg
