// Launchers of the fused optimizer steps on CUDA (optimizer_ops.cu). Each takes the tensors of
// one dtype as slots: pointers to contiguous device memory of `dtype`, one per list (null for
// an unused list: the momentum buffers without momentum, max_exp_avg_sqs without amsgrad), and
// their element count. Every tensor of the call is updated by one multi-tensor launch (or a
// few, when the tensors do not fit one kernel argument): see Note [Multi-tensor apply].
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/scalar_type.h"
#include "optimizer_math.h"

namespace tg::cuda {

template <int kDepth>
struct TensorSlots {
  std::array<void*, kDepth> data;
  int64_t numel;
};

// param, grad, momentum buffer
void launch_fused_sgd(ScalarType dtype, const std::vector<TensorSlots<3>>& tensors, const optim::SgdOptions& options);

// param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq; per tensor, its step size and bias
// correction (optim::AdamElementOptions' step_size and bias_correction2_sqrt) in `per_tensor`.
struct AdamTensorScalars {
  double step_size, bias_correction2_sqrt;
};
void launch_fused_adam(ScalarType dtype, const std::vector<TensorSlots<5>>& tensors,
                       const std::vector<AdamTensorScalars>& per_tensor, const optim::AdamElementOptions& options,
                       const char* op);

}  // namespace tg::cuda
