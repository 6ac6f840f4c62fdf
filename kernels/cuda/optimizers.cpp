// The native:: CUDA kernels of the fused optimizer steps (schemas/optim.yaml). The checks are
// the CPU kernels' (optimizer_rules.h); the tensors of each dtype are then updated by one
// multi-tensor launch (optimizer_ops.h). A tensor that is not contiguous is updated through a
// contiguous copy that is copied back. found_inf, grad_scale and the step counts on the device
// are read by the kernel, never on the host: see Note [No host reads in optimizer steps].
#include <cmath>
#include <map>
#include <optional>
#include <vector>

#include "NativeFunctions.h"
#include "cuda/cuda_guard.h"
#include "cuda/elementwise_host.h"
#include "cuda/optimizer_ops.h"
#include "optimizer_rules.h"
#include "tensorgen/ops.h"

namespace tg {

namespace {

// The tensors a step writes through raw pointers: each itself when contiguous, else a
// contiguous copy that finish() writes back.
class WritableTensors {
 public:
  void* add(const Tensor& t) {
    if (!t.defined()) return nullptr;
    const Tensor data = cuda::contiguous_as(t, t.scalar_type());
    if (!data.is_same(t)) copies_.push_back({t, data});
    return data.data_ptr();
  }
  void finish() const {
    for (const auto& [original, copy] : copies_) original.copy_(copy);
  }

 private:
  std::vector<std::pair<Tensor, Tensor>> copies_;
};

// Every parameter on one CUDA device, made current.
cuda::CUDAGuard params_device_guard(const char* op, TensorList params) {
  for (size_t i = 0; i < params.size(); ++i) {
    TG_CHECK(params[i].device() == params[0].device(), "[", op, "] expected every parameter on ", params[0].device(),
             ", got ", params[i].device(), " for parameter ", i);
  }
  return cuda::CUDAGuard(params.empty() ? Device(kCUDA) : params[0].device());
}

// A 1-element tensor (found_inf, grad_scale, a step count) as a float on `device`, for the
// kernel to read; a copy or conversion at most, which the host does not wait for. Kept alive
// by the caller until the launch is enqueued (the caching allocator orders reuse on the
// stream).
Tensor device_float(const char* op, const Tensor& t, Device device, const char* name) {
  TG_CHECK_VALUE(t.numel() == 1, "[", op, "] expected a 1-element ", name, ", got shape ", t.sizes());
  return cuda::contiguous_as(t.device() == device ? t : t.to(device), kFloat);
}

// found_inf and grad_scale for the kernel; `keep` holds the tensors behind the pointers.
cuda::DeviceStepValues device_values(const char* op, const std::optional<Tensor>& grad_scale,
                                     const std::optional<Tensor>& found_inf, Device device, std::vector<Tensor>& keep) {
  cuda::DeviceStepValues values;
  if (found_inf && found_inf->defined()) {
    keep.push_back(device_float(op, *found_inf, device, "found_inf"));
    values.found_inf = keep.back().data_ptr<float>();
  }
  if (grad_scale && grad_scale->defined()) {
    keep.push_back(device_float(op, *grad_scale, device, "grad_scale"));
    values.grad_scale = keep.back().data_ptr<float>();
  }
  return values;
}

// Calls update(dtype, indices of the parameters of that dtype) for each dtype among params.
template <typename Update>
void for_each_dtype(TensorList params, const Update& update) {
  std::map<ScalarType, std::vector<size_t>> groups;
  for (size_t i = 0; i < params.size(); ++i) groups[params[i].scalar_type()].push_back(i);
  for (const auto& [dtype, members] : groups) update(dtype, members);
}

void adam_step(const char* op, TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
               TensorList max_exp_avg_sqs, TensorList state_steps, const AdamOptions& o,
               const std::optional<Tensor>& grad_scale, const std::optional<Tensor>& found_inf) {
  check_adam(op, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, o.amsgrad);
  const cuda::CUDAGuard guard = params_device_guard(op, params);
  if (params.empty()) return;
  std::vector<Tensor> keep;
  const cuda::DeviceStepValues values = device_values(op, grad_scale, found_inf, params[0].device(), keep);
  const optim::AdamElementOptions options{o.lr, o.beta1,    o.beta2, o.weight_decay, o.eps, o.amsgrad, o.maximize,
                                          o.decoupled_weight_decay, 1.0, 0.0, 0.0};
  WritableTensors writable;
  for_each_dtype(params, [&](ScalarType dtype, const std::vector<size_t>& members) {
    std::vector<cuda::TensorSlots<5>> slots;
    std::vector<cuda::AdamTensorScalars> scalars;
    for (size_t i : members) {
      const Tensor v_max = o.amsgrad ? max_exp_avg_sqs[i] : Tensor();
      slots.push_back({{writable.add(params[i]), writable.add(grads[i]), writable.add(exp_avgs[i]),
                        writable.add(exp_avg_sqs[i]), writable.add(v_max)},
                       params[i].numel()});
      if (state_steps[i].is_cpu()) {
        scalars.push_back({nullptr, state_steps[i].item<double>()});  // host memory: no wait
      } else {
        keep.push_back(device_float(op, state_steps[i], params[i].device(), "state_steps element"));
        scalars.push_back({keep.back().data_ptr<float>(), 0.0});
      }
    }
    cuda::launch_fused_adam(dtype, slots, scalars, options, values, op);
  });
  writable.finish();
}

}  // namespace

void native::_fused_sgd_kernel_cuda_(TensorList self, TensorList grads, TensorList momentum_buffer_list,
                                     double weight_decay, double momentum, double lr, double dampening, bool nesterov,
                                     bool maximize, bool is_first_step, const std::optional<Tensor>& grad_scale,
                                     const std::optional<Tensor>& found_inf) {
  const char* op = "_fused_sgd_";
  check_sgd(op, self, grads, momentum_buffer_list, momentum, dampening, nesterov);
  const cuda::CUDAGuard guard = params_device_guard(op, self);
  if (self.empty()) return;
  std::vector<Tensor> keep;
  const cuda::DeviceStepValues values = device_values(op, grad_scale, found_inf, self[0].device(), keep);
  const optim::SgdOptions options{weight_decay, momentum, lr, dampening, nesterov, maximize, is_first_step, 1.0};
  WritableTensors writable;
  for_each_dtype(self, [&](ScalarType dtype, const std::vector<size_t>& members) {
    std::vector<cuda::TensorSlots<3>> slots;
    for (size_t i : members) {
      const Tensor buffer = momentum != 0 ? momentum_buffer_list[i] : Tensor();
      slots.push_back({{writable.add(self[i]), writable.add(grads[i]), writable.add(buffer)}, self[i].numel()});
    }
    cuda::launch_fused_sgd(dtype, slots, options, values);
  });
  writable.finish();
}

void native::_fused_adamw_kernel_cuda_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                                       TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1,
                                       double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                                       const std::optional<Tensor>& grad_scale,
                                       const std::optional<Tensor>& found_inf) {
  adam_step("_fused_adamw_", self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
            AdamOptions{lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, /*decoupled_weight_decay=*/true},
            grad_scale, found_inf);
}

void native::_fused_adam_kernel_cuda_(TensorList self, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                                      TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1,
                                      double beta2, double weight_decay, double eps, bool amsgrad, bool maximize,
                                      const std::optional<Tensor>& grad_scale,
                                      const std::optional<Tensor>& found_inf) {
  adam_step("_fused_adam_", self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
            AdamOptions{lr, beta1, beta2, weight_decay, eps, amsgrad, maximize, /*decoupled_weight_decay=*/false},
            grad_scale, found_inf);
}

}  // namespace tg
