// CPU kernels of the fused optimizer steps (schemas/optim.yaml): one pass over each
// parameter's elements updates the parameter and its state together, in the compute type
// of the parameter's dtype (float for float16 and bfloat16). A tensor that is not contiguous
// is updated through a contiguous copy that is copied back.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

#include "NativeFunctions.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "dtype_dispatch.h"

namespace tg {

namespace {

// The checks every fused step makes: each list has one tensor per parameter (or none, when
// `may_be_empty`), of the parameter's shape, dtype and device; parameters are floating.
struct ListArgument {
  const char* name;
  TensorList tensors;
  bool may_be_empty;
};

void check_lists(const char* op, TensorList params, std::initializer_list<ListArgument> lists) {
  for (size_t i = 0; i < params.size(); ++i) {
    TG_CHECK_TYPE(is_floating_type(params[i].scalar_type()), "[", op, "] expected floating parameters, got ",
                  params[i].scalar_type(), " for parameter ", i);
  }
  for (const ListArgument& list : lists) {
    if (list.may_be_empty && list.tensors.empty()) continue;
    TG_CHECK_VALUE(list.tensors.size() == params.size(), "[", op, "] expected ", list.name, " to hold ",
                   params.size(), " tensors, one per parameter, got ", list.tensors.size());
    for (size_t i = 0; i < params.size(); ++i) {
      const Tensor& t = list.tensors[i];
      TG_CHECK_VALUE(t.sizes() == params[i].sizes(), "[", op, "] expected ", list.name, "[", i, "] of the shape of ",
                     "parameter ", i, " ", params[i].sizes(), ", got ", t.sizes());
      TG_CHECK_TYPE(t.scalar_type() == params[i].scalar_type(), "[", op, "] expected ", list.name, "[", i, "] of ",
                    "dtype ", params[i].scalar_type(), " like its parameter, got ", t.scalar_type());
      TG_CHECK(t.device() == params[i].device(), "[", op, "] expected ", list.name, "[", i, "] on ",
               params[i].device(), " like its parameter, got ", t.device());
    }
  }
}

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

bool step_skipped(const std::optional<Tensor>& found_inf) {
  return found_inf && found_inf->defined() && found_inf->item<double>() != 0.0;
}

// 1 / grad_scale, or 1 without one.
double inverse_scale(const char* op, const std::optional<Tensor>& grad_scale) {
  if (!grad_scale || !grad_scale->defined()) return 1.0;
  TG_CHECK_VALUE(grad_scale->numel() == 1, "[", op, "] expected a 1-element grad_scale, got shape ",
                 grad_scale->sizes());
  return 1.0 / grad_scale->item<double>();
}

struct AdamOptions {
  double lr, beta1, beta2, weight_decay, eps;
  bool amsgrad, maximize, decoupled_weight_decay;
};

void adam_step(const char* op, TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
               TensorList max_exp_avg_sqs, TensorList state_steps, const AdamOptions& o,
               const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  check_lists(op, params, {{"grads", grads, false}, {"exp_avgs", exp_avgs, false},
                           {"exp_avg_sqs", exp_avg_sqs, false}, {"max_exp_avg_sqs", max_exp_avg_sqs, !o.amsgrad}});
  TG_CHECK_VALUE(state_steps.size() == params.size(), "[", op, "] expected state_steps to hold ", params.size(),
                 " tensors, one per parameter, got ", state_steps.size());
  if (step_skipped(found_inf)) return;
  const double unscale = inverse_scale(op, grad_scale);
  for (size_t i = 0; i < params.size(); ++i) {
    TG_CHECK_VALUE(state_steps[i].numel() == 1, "[", op, "] expected a 1-element state_steps[", i, "], got shape ",
                   state_steps[i].sizes());
    const double step = state_steps[i].item<double>();
    const double bias_correction1 = 1 - std::pow(o.beta1, step);
    const double bias_correction2_sqrt = std::sqrt(1 - std::pow(o.beta2, step));
    const double step_size = o.lr / bias_correction1;
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
        T gj = cpu::convert<T>(g[j]);
        if (unscale != 1.0) {
          gj *= static_cast<T>(unscale);
          g[j] = cpu::convert<scalar_t>(gj);
        }
        if (o.maximize) gj = -gj;
        T pj = cpu::convert<T>(p[j]);
        if (o.decoupled_weight_decay) {
          pj *= static_cast<T>(1 - o.lr * o.weight_decay);
        } else if (o.weight_decay != 0) {
          gj += static_cast<T>(o.weight_decay) * pj;
        }
        const T mj = static_cast<T>(o.beta1) * cpu::convert<T>(mp[j]) + static_cast<T>(1 - o.beta1) * gj;
        const T vj = static_cast<T>(o.beta2) * cpu::convert<T>(vp[j]) + static_cast<T>(1 - o.beta2) * gj * gj;
        mp[j] = cpu::convert<scalar_t>(mj);
        vp[j] = cpu::convert<scalar_t>(vj);
        T second = vj;
        if (o.amsgrad) {
          second = std::max(cpu::convert<T>(vm[j]), vj);
          vm[j] = cpu::convert<scalar_t>(second);
        }
        const T denominator = std::sqrt(second) / static_cast<T>(bias_correction2_sqrt) + static_cast<T>(o.eps);
        p[j] = cpu::convert<scalar_t>(pj - static_cast<T>(step_size) * mj / denominator);
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
  check_lists(op, self, {{"grads", grads, false}, {"momentum_buffer_list", momentum_buffer_list, momentum == 0}});
  TG_CHECK_VALUE(!nesterov || (momentum > 0 && dampening == 0), "[", op, "] nesterov momentum requires a momentum ",
                 "and zero dampening, got momentum=", momentum, " and dampening=", dampening);
  if (step_skipped(found_inf)) return;
  const double unscale = inverse_scale(op, grad_scale);
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
        if (unscale != 1.0) {
          gj *= static_cast<T>(unscale);
          g[j] = cpu::convert<scalar_t>(gj);
        }
        if (maximize) gj = -gj;
        const T pj = cpu::convert<T>(p[j]);
        if (weight_decay != 0) gj += static_cast<T>(weight_decay) * pj;
        if (momentum != 0) {
          const T bj = is_first_step ? gj
                                     : static_cast<T>(momentum) * cpu::convert<T>(b[j]) +
                                           static_cast<T>(1 - dampening) * gj;
          b[j] = cpu::convert<scalar_t>(bj);
          gj = nesterov ? gj + static_cast<T>(momentum) * bj : bj;
        }
        p[j] = cpu::convert<scalar_t>(pj - static_cast<T>(lr) * gj);
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
