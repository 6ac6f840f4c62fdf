// batch_norm and group_norm as decompositions into reductions and pointwise operators
// (CompositeImplicitAutograd, schemas/normalization.yaml): their gradients, tangents, batching
// rules and CUDA versions are those of the parts. See Note [Normalization as a decomposition].
//
// Note [Normalization as a decomposition]: a fused kernel would save passes over the input,
// but the decomposition is exact, differentiable twice and runs on every backend at once; the
// variance is computed from (input - mean), so it does not lose precision for large means.
#include "NativeFunctions.h"
#include "autograd/grad_mode.h"
#include "tensorgen/ops.h"

namespace tg::native {

namespace {

// A per-channel [C] tensor shaped [1, C, 1, ...] to broadcast against an input of `dim` dims.
Tensor along_channels(const Tensor& per_channel, int64_t dim) {
  std::vector<int64_t> shape(static_cast<size_t>(dim), 1);
  shape[1] = per_channel.numel();
  return per_channel.reshape(shape);
}

void check_per_channel(const char* op, const char* name, const std::optional<Tensor>& tensor, int64_t channels) {
  if (!tensor.has_value() || !tensor->defined()) return;
  TG_CHECK_VALUE(tensor->dim() == 1 && tensor->size(0) == channels, "[", op, "] expected ", name, " of shape [",
                 channels, "] (one value per channel), got ", tensor->sizes());
}

bool defined(const std::optional<Tensor>& tensor) { return tensor.has_value() && tensor->defined(); }

// out * weight + bias with weight and bias per channel (either may be absent).
Tensor affine(Tensor out, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias) {
  if (defined(weight)) out = out * along_channels(*weight, out.dim());
  if (defined(bias)) out = out + along_channels(*bias, out.dim());
  return out;
}

// running = (1 - momentum) * running + momentum * batch, in place and outside autograd: the
// running statistics are buffers, not part of the function being differentiated.
void update_running(const Tensor& running, const Tensor& batch, double momentum) {
  NoGradGuard no_grad;
  Tensor value = batch.detach().reshape({-1}).to(running.scalar_type());
  running.mul_(1.0 - momentum).add_(value, momentum);
}

}  // namespace

Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool /*cudnn_enabled*/) {
  TG_CHECK_VALUE(input.dim() >= 2, "[batch_norm] expected an input of shape [N, C, *] (at least 2 dims), got ",
                 input.sizes());
  const int64_t channels = input.size(1);
  check_per_channel("batch_norm", "weight", weight, channels);
  check_per_channel("batch_norm", "bias", bias, channels);
  check_per_channel("batch_norm", "running_mean", running_mean, channels);
  check_per_channel("batch_norm", "running_var", running_var, channels);
  TG_CHECK_VALUE(eps >= 0.0, "[batch_norm] expected eps >= 0, got ", eps);
  TG_CHECK_VALUE(defined(running_mean) == defined(running_var), "[batch_norm] running_mean and running_var must be ",
                 "given together, got only ", defined(running_mean) ? "running_mean" : "running_var");

  std::vector<int64_t> reduce_dims{0};
  for (int64_t d = 2; d < input.dim(); ++d) reduce_dims.push_back(d);
  Tensor mean, var;
  if (training) {
    const int64_t per_channel = channels == 0 ? 0 : input.numel() / channels;
    TG_CHECK_VALUE(per_channel > 1, "[batch_norm] expected more than 1 value per channel when training, got input "
                   "of shape ", input.sizes());
    mean = input.mean(reduce_dims, /*keepdim=*/true);
    var = input.var(reduce_dims, /*unbiased=*/false, /*keepdim=*/true);
    if (defined(running_mean)) {
      update_running(*running_mean, mean, momentum);
      // The running variance estimates the population's: the unbiased batch variance.
      const double bessel = static_cast<double>(per_channel) / static_cast<double>(per_channel - 1);
      update_running(*running_var, var.detach() * bessel, momentum);
    }
  } else {
    TG_CHECK_VALUE(defined(running_mean), "[batch_norm] running_mean and running_var must be defined in evaluation "
                   "mode (training=false), got None");
    mean = along_channels(*running_mean, input.dim());
    var = along_channels(*running_var, input.dim());
  }
  // One scale and one shift per channel, then one multiply-add over the input, as LibTorch's
  // CPU kernel does: input * (weight / sqrt(var + eps)) + (bias - mean * scale). Normalizing
  // first took four passes over the input and four results of its size.
  Tensor scale = (var + eps).pow(-0.5);
  if (defined(weight)) scale = scale * along_channels(*weight, input.dim());
  Tensor shift = -(mean * scale);
  if (defined(bias)) shift = shift + along_channels(*bias, input.dim());
  return input * scale + shift;
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool /*cudnn_enabled*/) {
  TG_CHECK_VALUE(input.dim() >= 2, "[group_norm] expected an input of shape [N, C, *] (at least 2 dims), got ",
                 input.sizes());
  const int64_t channels = input.size(1);
  TG_CHECK_VALUE(num_groups > 0, "[group_norm] expected num_groups > 0, got ", num_groups);
  TG_CHECK_VALUE(channels % num_groups == 0, "[group_norm] expected the number of channels (", channels,
                 ") to be divisible by num_groups, got num_groups=", num_groups);
  check_per_channel("group_norm", "weight", weight, channels);
  check_per_channel("group_norm", "bias", bias, channels);
  TG_CHECK_VALUE(eps >= 0.0, "[group_norm] expected eps >= 0, got ", eps);

  // [N, C, *] -> [N, G, C / G * prod(*)]: each row is one group of one sample.
  const int64_t batch = input.size(0);
  const int64_t per_group = batch * channels == 0 ? 0 : input.numel() / (batch * num_groups);
  Tensor grouped = input.reshape({batch, num_groups, per_group});
  Tensor mean = grouped.mean({2}, /*keepdim=*/true);
  Tensor var = grouped.var({2}, /*unbiased=*/false, /*keepdim=*/true);
  Tensor normalized = ((grouped - mean) / (var + eps).sqrt()).reshape(input.sizes());
  return affine(normalized, weight, bias);
}

}  // namespace tg::native
