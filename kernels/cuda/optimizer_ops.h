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

// Values of a step that live on the device, read by the kernel itself so that the host never
// waits for the device (null: absent). See Note [No host reads in optimizer steps].
struct DeviceStepValues {
  const float* found_inf = nullptr;   // nonzero: every thread returns before writing
  const float* grad_scale = nullptr;  // the gradients are multiplied by 1 / *grad_scale
};

// param, grad, momentum buffer
void launch_fused_sgd(ScalarType dtype, const std::vector<TensorSlots<3>>& tensors, const optim::SgdOptions& options,
                      const DeviceStepValues& device_values);

// param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq; per tensor its step count: on the device
// (`step`, a float the kernel reads) or known on the host (`host_step`, when step is null).
struct AdamTensorScalars {
  const float* step;
  double host_step;
};
void launch_fused_adam(ScalarType dtype, const std::vector<TensorSlots<5>>& tensors,
                       const std::vector<AdamTensorScalars>& per_tensor, const optim::AdamElementOptions& options,
                       const DeviceStepValues& device_values, const char* op);

}  // namespace tg::cuda
