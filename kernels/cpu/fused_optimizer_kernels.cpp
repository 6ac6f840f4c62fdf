// CPU kernels of the fused optimizer steps (schemas/optim.yaml): one pass over each
// parameter's elements updates the parameter and its state together, in the compute type
// of the parameter's dtype (float for float16 and bfloat16), with the formulas of
// optimizer_math.h. A tensor that is not contiguous is updated through a contiguous copy that
// is copied back.
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "NativeFunctions.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "dtype_dispatch.h"
#include "optimizer_math.h"
#include "optimizer_rules.h"

namespace tg {

namespace {

// A tensor a kernel writes through a raw pointer: itself when contiguous, else a contiguous
// copy that finish() writes back.
class Writable {
 public:
  explicit Writable(const Tensor& t) : original_(t), data_(cpu::contiguous_as(t, t.scalar_type())) {}
  template <typename T>
  T* data() const {
    return data_.data_ptr<T>();
  }
  void finish() const {
    if (!data_.is_same(original_)) cpu::copy_into(original_, data_);
  }

 private:
  Tensor original_, data_;
};

void adam_step(const char* op, TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
               TensorList max_exp_avg_sqs, TensorList state_steps, const AdamOptions& o,
               const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  check_adam(op, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, o.amsgrad);
  if (step_skipped(found_inf)) return;
  const double unscale = inverse_scale(op, grad_scale);
  for (size_t i = 0; i < params.size(); ++i) {
    const double step = state_steps[i].item<double>();
    const optim::AdamElementOptions element{o.lr, o.beta1, o.beta2, o.weight_decay, o.eps, o.amsgrad, o.maximize,
                                            o.decoupled_weight_decay, unscale, o.lr / (1 - std::pow(o.beta1, step)),
                                            std::sqrt(1 - std::pow(o.beta2, step))};
    const Writable param(params[i]), grad(grads[i]), m(exp_avgs[i]), v(exp_avg_sqs[i]);
    std::optional<Writable> v_max;
    if (o.amsgrad) v_max.emplace(max_exp_avg_sqs[i]);
    TG_DISPATCH_FLOATING_TYPES(params[i].scalar_type(), op, [&] {
      using T = opmath_t<scalar_t>;
      scalar_t *p = param.data<scalar_t>(), *g = grad.data<scalar_t>(), *mp = m.data<scalar_t>();
      scalar_t* vp = v.data<scalar_t>();
      scalar_t* vm = o.amsgrad ? v_max->data<scalar_t>() : nullptr;
      const int64_t n = params[i].numel();
      for (int64_t j = 0; j < n; ++j) {
        T gj = cpu::convert<T>(g[j]), mj = cpu::convert<T>(mp[j]), vj = cpu::convert<T>(vp[j]);
        T vmax = vm != nullptr ? cpu::convert<T>(vm[j]) : T(0);
        const T pj = optim::adam_step(cpu::convert<T>(p[j]), gj, mj, vj, vmax, element);
        if (unscale != 1.0) g[j] = cpu::convert<scalar_t>(gj);
        mp[j] = cpu::convert<scalar_t>(mj);
        vp[j] = cpu::convert<scalar_t>(vj);
        if (vm != nullptr) vm[j] = cpu::convert<scalar_t>(vmax);
        p[j] = cpu::convert<scalar_t>(pj);
      }
    });
    for (const Writable* w : {&param, &grad, &m, &v}) w->finish();
    if (v_max) v_max->finish();
  }
}

}  // namespace

void native::_fused_sgd_kernel_cpu_(TensorList self, TensorList grads, TensorList momentum_buffer_list,
                                    double weight_decay, double momentum, double lr, double dampening, bool nesterov,
                                    bool maximize, bool is_first_step, const std::optional<Tensor>& grad_scale,
                                    const std::optional<Tensor>& found_inf) {
  const char* op = "_fused_sgd_";
  check_sgd(op, self, grads, momentum_buffer_list, momentum, dampening, nesterov);
  if (step_skipped(found_inf)) return;
  const double unscale = inverse_scale(op, grad_scale);
  const optim::SgdOptions options{weight_decay, momentum, lr, dampening, nesterov, maximize, is_first_step, unscale};
  for (size_t i = 0; i < self.size(); ++i) {
    const Writable param(self[i]), grad(grads[i]);
    std::optional<Writable> buffer;
    if (momentum != 0) buffer.emplace(momentum_buffer_list[i]);
    TG_DISPATCH_FLOATING_TYPES(self[i].scalar_type(), op, [&] {
      using T = opmath_t<scalar_t>;
      scalar_t *p = param.data<scalar_t>(), *g = grad.data<scalar_t>();
      scalar_t* b = buffer ? buffer->data<scalar_t>() : nullptr;
      const int64_t n = self[i].numel();
      for (int64_t j = 0; j < n; ++j) {
        T gj = cpu::convert<T>(g[j]);
        T bj = b != nullptr && !is_first_step ? cpu::convert<T>(b[j]) : T(0);
        const T pj = optim::sgd_step(cpu::convert<T>(p[j]), gj, bj, options);
        if (unscale != 1.0) g[j] = cpu::convert<scalar_t>(gj);
        if (b != nullptr) b[j] = cpu::convert<scalar_t>(bj);
        p[j] = cpu::convert<scalar_t>(pj);
      }
    });
    for (const Writable* w : {&param, &grad}) w->finish();
    if (buffer) buffer->finish();
  }
}

void native::_fused_adamw_kernel_cpu_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                                      TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1,
                                      double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                                      const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  adam_step("_fused_adamw_", self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
            AdamOptions{lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, /*decoupled_weight_decay=*/true},
            grad_scale, found_inf);
}

void native::_fused_adam_kernel_cpu_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                                     TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1,
                                     double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                                     const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  adam_step("_fused_adam_", self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
            AdamOptions{lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, /*decoupled_weight_decay=*/false},
            grad_scale, found_inf);
}

}  // namespace tg
