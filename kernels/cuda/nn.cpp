// The native:: CUDA kernels of the nn operators (schemas/nn.yaml, loss.yaml): layer norm and
// its backward, dropout and its backward, embedding's dense backward, and the NLL loss and its
// backward. Arguments are checked by the CPU kernels' rules (nn_rules.h); values that the CPU
// reads in double (class weights, the loss gradient, layer norm's statistics and parameters)
// go to the kernels in the accumulation dtype or in double. Index values (embedding's indices,
// the NLL targets) are checked on the device: Note [Index checks on the device], docs/cuda.md.
#include "NativeFunctions.h"
#include "core/reduction.h"
#include "cuda/cuda_generator.h"
#include "cuda/elementwise_host.h"
#include "cuda/factory_ops.h"
#include "cuda/index_check.h"
#include "cuda/nn_ops.h"
#include "cuda/pointwise_ops.h"
#include "nn_rules.h"
#include "tensorgen/ops.h"

namespace tg {

namespace {

bool defined(const std::optional<Tensor>& t) { return t.has_value() && t->defined(); }

// An optional tensor as a contiguous one of `dtype` (undefined when absent) and its pointer.
Tensor optional_as(const std::optional<Tensor>& t, ScalarType dtype) {
  return defined(t) ? cuda::contiguous_as(*t, dtype) : Tensor();
}

const void* data_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

// out = keep ? x * scale : 0, broadcasting x and keep.
void masked_scale(const Tensor& out, const Tensor& input, const Tensor& keep, double scale) {
  const ScalarType dtype = out.scalar_type();
  cuda::ElementwiseLaunch launch("dropout", out, dtype, {{input, dtype}, {keep, kBool}});
  cuda::launch_masked_scale(dtype, launch.args(), scale);
  launch.finish();
}

}  // namespace

void native::layer_norm_out_cuda(const Tensor& input, IntArrayRef /*normalized_shape*/,
                                 const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, double eps,
                                 const Tensor& out, const Tensor& mean, const Tensor& rstd) {
  // The meta function checked the arguments: mean and rstd hold one element per row.
  const ScalarType dtype = input.scalar_type(), acc = cuda::acc_dtype(dtype);
  const int64_t rows = mean.numel();
  const int64_t row_size = rows == 0 ? 0 : input.numel() / rows;
  const Tensor x = cuda::contiguous_as(input, dtype);
  const Tensor w = optional_as(weight, acc), b = optional_as(bias, acc);
  cuda::launch_layer_norm(dtype, x.data_ptr(), data_or_null(w), data_or_null(b), out.data_ptr(), mean.data_ptr(),
                          rstd.data_ptr(), rows, row_size, eps);
}

std::tuple<Tensor, Tensor, Tensor> native::layer_norm_backward_cuda(
    const Tensor& grad_out, const Tensor& input, IntArrayRef normalized_shape, const Tensor& mean, const Tensor& rstd,
    const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, std::array<bool, 3> output_mask) {
  const LayerNormShape shape =
      check_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias);
  const ScalarType dtype = input.scalar_type(), acc = cuda::acc_dtype(dtype);
  auto [grad_input, grad_weight, grad_bias] = layer_norm_backward_outputs(input, normalized_shape, output_mask);
  const Tensor x = cuda::contiguous_as(input, dtype), g = cuda::contiguous_as(grad_out, dtype);
  const Tensor mean_t = cuda::contiguous_as(mean, acc), rstd_t = cuda::contiguous_as(rstd, acc);
  const Tensor w = optional_as(weight, acc);
  const auto data = [](const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; };
  cuda::launch_layer_norm_backward(dtype, g.data_ptr(), x.data_ptr(), mean_t.data_ptr(), rstd_t.data_ptr(),
                                   data_or_null(w), data(grad_input), data(grad_weight), data(grad_bias), shape.rows,
                                   shape.row_size);
  return {grad_input, grad_weight, grad_bias};
}

// The mask draws from the device's Philox stream: see Note [Random numbers on CUDA].
std::tuple<Tensor, Tensor> native::native_dropout_cuda(const Tensor& input, double p, std::optional<bool> train) {
  const double scale = check_dropout(input, p);
  if (!train.value_or(true)) return dropout_eval(input);
  Tensor mask = make_empty_tensor(input.sizes(), kBool, input.device());
  cuda::launch_bernoulli_mask(mask.data_ptr<bool>(), mask.numel(), cuda::philox_state(input.device().index()), p);
  Tensor output = make_empty_tensor(input.sizes(), input.scalar_type(), input.device());
  masked_scale(output, input, mask, scale);
  return {output, mask};
}

Tensor native::native_dropout_backward_cuda(const Tensor& grad_output, const Tensor& mask, double scale) {
  const DimVector sizes = check_dropout_backward(grad_output, mask);
  Tensor grad_input = make_empty_tensor(sizes, grad_output.scalar_type(), grad_output.device());
  masked_scale(grad_input, grad_output, mask, scale);
  return grad_input;
}

Tensor native::embedding_dense_backward_cuda(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                             int64_t padding_idx, bool scale_grad_by_freq) {
  check_embedding_backward_shapes(grad_output, indices, num_weights);
  cuda::check_index_errors();
  const ScalarType dtype = grad_output.scalar_type();
  const Device device = grad_output.device();
  const int64_t width = grad_output.size(-1);
  const int64_t sizes[] = {num_weights, width};
  Tensor sums = make_empty_tensor(sizes, cuda::acc_dtype(dtype), device);
  sums.fill_(0);
  const Tensor grad = cuda::contiguous_as(grad_output, dtype);
  const Tensor index = cuda::int64_on(indices, device);
  Tensor frequency;
  if (scale_grad_by_freq && num_weights > 0) {
    frequency = make_empty_tensor({num_weights}, kLong, device);
    frequency.fill_(0);
    cuda::launch_embedding_count(index.data_ptr<int64_t>(), index.numel(), num_weights, frequency.data_ptr<int64_t>());
  }
  cuda::launch_embedding_backward(dtype, grad.data_ptr(), index.data_ptr<int64_t>(),
                                  frequency.defined() ? frequency.data_ptr<int64_t>() : nullptr, sums.data_ptr(),
                                  index.numel(), width, num_weights, padding_idx, scale_grad_by_freq);
  cuda::check_index_errors();
  Tensor grad_weight = make_empty_tensor(sizes, dtype, device);
  grad_weight.copy_(sums);
  return grad_weight;
}

void native::nll_loss_forward_out_cuda(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                       int64_t reduction, int64_t ignore_index, const Tensor& output,
                                       const Tensor& total_weight) {
  const int64_t classes = self.size(-1);
  cuda::check_index_errors();
  const Tensor x = cuda::contiguous_as(self, self.scalar_type());
  const Tensor target_t = cuda::int64_on(target, self.device());
  const Tensor w = optional_as(weight, kDouble);
  cuda::launch_nll_loss(self.scalar_type(), x.data_ptr(), target_t.data_ptr<int64_t>(),
                        static_cast<const double*>(data_or_null(w)), output.data_ptr(), total_weight.data_ptr(),
                        target_t.numel(), classes, reduction, ignore_index);
  cuda::check_index_errors();
  // LibTorch leaves total_weight 0 for an unreduced batch (2-d self, reduction none).
  if (reduction == Reduction::None && self.dim() == 2) total_weight.zero_();
}

void native::nll_loss_backward_out_cuda(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                        const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                                        const Tensor& total_weight, const Tensor& grad_input) {
  const int64_t classes = self.size(-1);
  cuda::check_index_errors();
  const Tensor target_t = cuda::int64_on(target, self.device());
  const Tensor grad = cuda::contiguous_as(grad_output, kDouble);
  const Tensor total = cuda::contiguous_as(total_weight, kDouble);
  const Tensor w = optional_as(weight, kDouble);
  const bool per_element = reduction == Reduction::None && self.dim() == 2;
  cuda::launch_nll_loss_backward(grad_input.scalar_type(), grad.data_ptr<double>(), target_t.data_ptr<int64_t>(),
                                 static_cast<const double*>(data_or_null(w)), total.data_ptr<double>(),
                                 grad_input.data_ptr(), target_t.numel(), classes, reduction, ignore_index,
                                 per_element);
  cuda::check_index_errors();
}

}  // namespace tg
