// nn::functional activations with LibTorch's options structs (F::relu(x, F::ReLUFuncOptions(true))).
// LeakyReLU and ELU are compositions of existing operators (no fused kernels yet).
#pragma once

#include "nn/options/activation.h"
#include "tensorgen/ops.h"

namespace tg::nn::functional {

inline Tensor relu(Tensor input, const ReLUFuncOptions& options = {}) {
  return options.inplace() ? input.relu_() : tg::relu(input);
}

inline Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options = {}) {
  Tensor result = tg::where(input.gt(0), input, input * options.negative_slope());
  return options.inplace() ? input.copy_(result) : result;
}

inline Tensor elu(Tensor input, const ELUFuncOptions& options = {}) {
  Tensor result = tg::where(input.gt(0), input, (tg::exp(input) - 1.0) * options.alpha());
  return options.inplace() ? input.copy_(result) : result;
}

inline Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {}) {
  return tg::gelu(input, options.approximate());
}

inline Tensor silu(const Tensor& input) { return tg::silu(input); }
inline Tensor sigmoid(const Tensor& input) { return tg::sigmoid(input); }
inline Tensor tanh(const Tensor& input) { return tg::tanh(input); }

inline Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return tg::softmax(input, options.dim(), options.dtype());
}

inline Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return tg::log_softmax(input, options.dim(), options.dtype());
}

}  // namespace tg::nn::functional
