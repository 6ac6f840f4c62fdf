// The per-element updates of the fused optimizer steps, written once for the CPU kernels
// (kernels/cpu/fused_optimizer_kernels.cpp) and the CUDA ones (kernels/cuda/optimizer_ops.cu).
// T is the compute type (float for float16 and bfloat16); the caller loads the parameter and
// its state, calls the step, and stores what it changed: the gradient when unscale != 1 (it is
// unscaled in place), the state, and the parameter the step returns.
#pragma once

#include "host_device_math.h"

namespace tg::optim {

struct SgdOptions {
  double weight_decay, momentum, lr, dampening;
  bool nesterov, maximize, is_first_step;
  double unscale;  // 1 / grad_scale
};

// `buffer` is the momentum buffer, used only when momentum != 0.
template <typename T>
TG_HOST_DEVICE inline T sgd_step(T param, T& grad, T& buffer, const SgdOptions& o) {
  if (o.unscale != 1.0) grad *= static_cast<T>(o.unscale);
  T d = o.maximize ? -grad : grad;
  if (o.weight_decay != 0) d += static_cast<T>(o.weight_decay) * param;
  if (o.momentum != 0) {
    buffer = o.is_first_step ? d : static_cast<T>(o.momentum) * buffer + static_cast<T>(1 - o.dampening) * d;
    d = o.nesterov ? d + static_cast<T>(o.momentum) * buffer : buffer;
  }
  return param - static_cast<T>(o.lr) * d;
}

// What an Adam step of one parameter needs besides its elements.
struct AdamElementOptions {
  double lr, beta1, beta2, weight_decay, eps;
  bool amsgrad, maximize, decoupled_weight_decay;
  double unscale;                // 1 / grad_scale
  double step_size;              // lr / (1 - beta1^step)
  double bias_correction2_sqrt;  // sqrt(1 - beta2^step)
};

// `max_sq` is used only with amsgrad.
template <typename T>
TG_HOST_DEVICE inline T adam_step(T param, T& grad, T& avg, T& avg_sq, T& max_sq, const AdamElementOptions& o) {
  if (o.unscale != 1.0) grad *= static_cast<T>(o.unscale);
  T g = o.maximize ? -grad : grad;
  if (o.decoupled_weight_decay) {
    param *= static_cast<T>(1 - o.lr * o.weight_decay);
  } else if (o.weight_decay != 0) {
    g += static_cast<T>(o.weight_decay) * param;
  }
  avg = static_cast<T>(o.beta1) * avg + static_cast<T>(1 - o.beta1) * g;
  avg_sq = static_cast<T>(o.beta2) * avg_sq + static_cast<T>(1 - o.beta2) * g * g;
  T second = avg_sq;
  if (o.amsgrad) {
    second = max_sq < avg_sq ? avg_sq : max_sq;
    max_sq = second;
  }
  const T denominator = hd::sqrt(second) / static_cast<T>(o.bias_correction2_sqrt) + static_cast<T>(o.eps);
  return param - static_cast<T>(o.step_size) * avg / denominator;
}

}  // namespace tg::optim
