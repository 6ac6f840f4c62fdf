// Gradient clipping, LibTorch's torch::nn::utils::clip_grad_norm_ / clip_grad_value_: scale
// all gradients together so that their total p-norm is at most max_norm, or clamp each
// gradient element into [-clip_value, clip_value]. Parameters without a gradient are skipped.
#pragma once

#include <initializer_list>
#include <vector>

#include "core/tensor.h"

namespace tg::nn::utils {

// Returns the total norm of the gradients before clipping (over all of them as one vector;
// norm_type may be infinity). With error_if_nonfinite, a NaN or infinite total norm throws.
double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value);
void clip_grad_value_(const Tensor& parameter, double clip_value);

}  // namespace tg::nn::utils
