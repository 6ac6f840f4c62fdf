// The LibTorch-level layers over their kernels: layer_norm over native_layer_norm, embedding
// over index_select, dropout over native_dropout.
#include "NativeFunctions.h"
#include "tensorgen/ops.h"

namespace tg::native {

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool /*cudnn_enable*/) {
  return std::get<0>(tg::native_layer_norm(input, normalized_shape, weight, bias, eps));
}

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/,
                 bool /*sparse*/) {
  TG_CHECK_VALUE(weight.dim() == 2, "[embedding] 'weight' must be 2-D, got a tensor of shape ", weight.sizes());
  TG_CHECK_TYPE(indices.scalar_type() == kLong || indices.scalar_type() == kInt, "[embedding] expected indices of ",
                "dtype int64 or int32, got ", indices.scalar_type());
  if (indices.dim() == 1) return weight.index_select(0, indices);
  std::vector<int64_t> sizes = indices.sizes().vec();
  sizes.push_back(weight.size(1));
  return weight.index_select(0, indices.reshape({-1})).view(sizes);
}

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx,
                          bool scale_grad_by_freq, bool sparse) {
  TG_CHECK_NOT_IMPLEMENTED(!sparse, "[embedding_backward] sparse=True asks for a sparse gradient, and tensorgen has ",
                           "no sparse tensors; use sparse=False");
  return tg::embedding_dense_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq);
}

Tensor dropout(const Tensor& input, double p, bool train) {
  TG_CHECK_VALUE(p >= 0.0 && p <= 1.0, "[dropout] dropout probability has to be between 0 and 1, but got ", p);
  if (!train || p == 0.0 || input.numel() == 0) return input;
  return std::get<0>(tg::native_dropout(input, p, train));
}

}  // namespace tg::native
