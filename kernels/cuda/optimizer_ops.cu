// CUDA kernels of the fused optimizer steps (optimizer_ops.h), with the per-element formulas of
// optimizer_math.h (shared with the CPU kernels).
//
// Note [Multi-tensor apply]
// An optimizer step touches many tensors, most of them small; a launch per tensor would cost
// more than the work. As PyTorch's multi_tensor_apply.cuh does, the tensors are cut into
// chunks of kChunkSize elements and packed into one kernel argument (TensorChunks: the
// tensors' pointers and sizes, and for each block the tensor and chunk it updates), so that
// one launch updates up to kMaxTensors tensors and kMaxBlocks chunks. When either is full the
// pack is launched and a new one begun; a tensor cut in the middle continues in the next pack.
// The argument stays under the 4 KiB that every GPU accepts.
//
// Note [No host reads in optimizer steps]
// found_inf, grad_scale and the step counts of an Adam step are tensors on the device (the
// gradient scaler and the optimizer update them there). Reading them on the host would make
// every step wait for the device. Instead their addresses travel in the kernel argument and
// each block reads them: found_inf != 0 makes the whole step a no-op, grad_scale gives the
// unscale factor, and a tensor's step gives its step size and bias correction. Steps kept on
// the host (CPU tensors) are read there, which costs no synchronisation.
#include <cstdint>
#include <vector>

#include "cuda/elementwise.cuh"
#include "cuda/launch.cuh"
#include "cuda/optimizer_ops.h"

namespace tg::cuda {

namespace {

constexpr int kMaxTensors = 32;
constexpr int kMaxBlocks = 320;
constexpr int64_t kChunkSize = 65536;
constexpr int kStepThreads = 512;

template <int kDepth>
struct TensorChunks {
  void* data[kDepth][kMaxTensors];
  int64_t numel[kMaxTensors];
  double host_step[kMaxTensors];      // per tensor: its step count when known on the host
  const float* step[kMaxTensors];     // per tensor: its step count on the device, or null
  uint8_t block_tensor[kMaxBlocks];
  int32_t block_chunk[kMaxBlocks];
  DeviceStepValues values;
};
static_assert(sizeof(TensorChunks<5>) <= 4000, "kernel arguments are limited to 4 KiB");

template <typename T, int kDepth, typename Step>
__global__ void multi_tensor_kernel(TensorChunks<kDepth> chunks, Step step) {
  // See Note [No host reads in optimizer steps].
  if (chunks.values.found_inf != nullptr && *chunks.values.found_inf != 0.0f) return;
  const double unscale = chunks.values.grad_scale != nullptr ? 1.0 / static_cast<double>(*chunks.values.grad_scale)
                                                             : step.default_unscale();
  const int tensor = chunks.block_tensor[blockIdx.x];
  const double step_count = chunks.step[tensor] != nullptr ? static_cast<double>(*chunks.step[tensor])
                                                           : chunks.host_step[tensor];
  const int64_t begin = static_cast<int64_t>(chunks.block_chunk[blockIdx.x]) * kChunkSize;
  const int64_t end = begin + kChunkSize < chunks.numel[tensor] ? begin + kChunkSize : chunks.numel[tensor];
  T* data[kDepth];
#pragma unroll
  for (int d = 0; d < kDepth; ++d) data[d] = static_cast<T*>(chunks.data[d][tensor]);
  for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
    step(data, j, step_count, unscale);
  }
}

// See Note [Multi-tensor apply]. step_of(i) gives tensor i's AdamTensorScalars.
template <typename T, int kDepth, typename Step, typename StepOf>
void multi_tensor_apply(const std::vector<TensorSlots<kDepth>>& tensors, const Step& step, const StepOf& step_of,
                        const DeviceStepValues& values) {
  const cudaStream_t stream = getCurrentCUDAStream();
  TensorChunks<kDepth> chunks{};
  chunks.values = values;
  int slot = 0, blocks = 0;
  const auto launch = [&] {
    launch_kernel(multi_tensor_kernel<T, kDepth, Step>, blocks, kStepThreads, 0, stream, chunks, step);
    TG_CUDA_KERNEL_LAUNCH_CHECK();
    blocks = 0;
  };
  const auto fill_slot = [&](int to, int from_tensor) {
    for (int d = 0; d < kDepth; ++d) chunks.data[d][to] = tensors[static_cast<size_t>(from_tensor)].data[d];
    chunks.numel[to] = tensors[static_cast<size_t>(from_tensor)].numel;
    const AdamTensorScalars count = step_of(from_tensor);
    chunks.step[to] = count.step;
    chunks.host_step[to] = count.host_step;
  };
  for (int i = 0; i < static_cast<int>(tensors.size()); ++i) {
    const int64_t numel = tensors[static_cast<size_t>(i)].numel;
    if (numel == 0) continue;
    fill_slot(slot, i);
    const int64_t count = (numel + kChunkSize - 1) / kChunkSize;
    for (int64_t c = 0; c < count; ++c) {
      chunks.block_tensor[blocks] = static_cast<uint8_t>(slot);
      chunks.block_chunk[blocks] = static_cast<int32_t>(c);
      ++blocks;
      const bool last_chunk = c + 1 == count;
      if (blocks == kMaxBlocks || (last_chunk && slot + 1 == kMaxTensors)) {
        launch();
        if (last_chunk) {
          slot = -1;  // the pack is empty; the increment below makes the next tensor slot 0
        } else {
          fill_slot(0, i);  // the rest of this tensor goes in the next pack
          slot = 0;
        }
      }
    }
    ++slot;
  }
  if (blocks > 0) launch();
}

template <typename T>
struct SgdElementStep {
  optim::SgdOptions options;
  bool has_buffer;

  __device__ double default_unscale() const { return options.unscale; }
  __device__ void operator()(T* const* data, int64_t j, double, double unscale) const {
    using M = opmath_t<T>;
    optim::SgdOptions o = options;
    o.unscale = unscale;
    M grad = convert<M>(data[1][j]);
    M buffer = has_buffer && !o.is_first_step ? convert<M>(data[2][j]) : M(0);
    const M param = optim::sgd_step(convert<M>(data[0][j]), grad, buffer, o);
    if (o.unscale != 1.0) data[1][j] = convert<T>(grad);
    if (has_buffer) data[2][j] = convert<T>(buffer);
    data[0][j] = convert<T>(param);
  }
};

template <typename T>
struct AdamElementStep {
  optim::AdamElementOptions options;  // step_size and bias_correction2_sqrt come from each tensor's step

  __device__ double default_unscale() const { return options.unscale; }
  __device__ void operator()(T* const* data, int64_t j, double step, double unscale) const {
    using M = opmath_t<T>;
    optim::AdamElementOptions o = options;
    o.unscale = unscale;
    o.step_size = o.lr / (1 - ::pow(o.beta1, step));
    o.bias_correction2_sqrt = ::sqrt(1 - ::pow(o.beta2, step));
    M grad = convert<M>(data[1][j]), avg = convert<M>(data[2][j]), avg_sq = convert<M>(data[3][j]);
    M max_sq = o.amsgrad ? convert<M>(data[4][j]) : M(0);
    const M param = optim::adam_step(convert<M>(data[0][j]), grad, avg, avg_sq, max_sq, o);
    if (o.unscale != 1.0) data[1][j] = convert<T>(grad);
    data[2][j] = convert<T>(avg);
    data[3][j] = convert<T>(avg_sq);
    if (o.amsgrad) data[4][j] = convert<T>(max_sq);
    data[0][j] = convert<T>(param);
  }
};

}  // namespace

void launch_fused_sgd(ScalarType dtype, const std::vector<TensorSlots<3>>& tensors, const optim::SgdOptions& options,
                      const DeviceStepValues& device_values) {
  dispatch_device_dtype<kFloatingTypes>(dtype, "_fused_sgd_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    multi_tensor_apply<T, 3>(tensors, SgdElementStep<T>{options, options.momentum != 0},
                             [](int) { return AdamTensorScalars{nullptr, 0.0}; }, device_values);
  });
}

void launch_fused_adam(ScalarType dtype, const std::vector<TensorSlots<5>>& tensors,
                       const std::vector<AdamTensorScalars>& per_tensor, const optim::AdamElementOptions& options,
                       const DeviceStepValues& device_values, const char* op) {
  dispatch_device_dtype<kFloatingTypes>(dtype, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    multi_tensor_apply<T, 5>(
        tensors, AdamElementStep<T>{options}, [&](int i) { return per_tensor[static_cast<size_t>(i)]; },
        device_values);
  });
}

}  // namespace tg::cuda
