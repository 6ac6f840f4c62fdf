// The LibTorch-level layers over their kernels: layer_norm over native_layer_norm, embedding
// over index_select, dropout over native_dropout, one_hot over scatter_add.
#include "NativeFunctions.h"
#include "tensorgen/ops.h"

namespace tg::native {

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool /*cudnn_enable*/) {
  return std::get<0>(tg::native_layer_norm(input, normalized_shape, weight, bias, eps));
}

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool /*scale_grad_by_freq*/,
                 bool /*sparse*/) {
  TG_CHECK_VALUE(weight.dim() == 2, "[embedding] 'weight' must be 2-D, got a tensor of shape ", weight.sizes());
  // -1 means "no padding row" at this level (ATen's convention: the Python layer has already
  // wrapped negative indices); backward compares indices with padding_idx as given, so any
  // other value outside the rows would silently mean nothing.
  TG_CHECK_INDEX(padding_idx == -1 || (padding_idx >= 0 && padding_idx < weight.size(0)),
                 "[embedding] padding_idx must be -1 (none) or a row of the weight in [0, ", weight.size(0),
                 "), got ", padding_idx);
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

Tensor one_hot(const Tensor& self, int64_t num_classes) {
  TG_CHECK_TYPE(self.scalar_type() == kLong, "[one_hot] one_hot is only applicable to index tensors of dtype int64, ",
                "got ", self.scalar_type());
  TG_CHECK_VALUE(num_classes >= -1, "[one_hot] num_classes should be -1 or a non-negative integer, got ", num_classes);
  std::vector<int64_t> sizes = self.sizes().vec();
  if (self.numel() == 0) {
    TG_CHECK_VALUE(num_classes != -1, "[one_hot] can not infer the total number of classes from an empty tensor");
    sizes.push_back(num_classes);
    return tg::zeros(sizes, TensorOptions().dtype(kLong).device(self.device()));
  }
  const int64_t smallest = self.amin().item<int64_t>(), largest = self.amax().item<int64_t>();
  TG_CHECK_VALUE(smallest >= 0, "[one_hot] class values must be non-negative, got ", smallest);
  if (num_classes == -1) num_classes = largest + 1;
  TG_CHECK_VALUE(largest < num_classes, "[one_hot] class values must be smaller than num_classes (", num_classes,
                 "), got ", largest);
  sizes.push_back(num_classes);
  Tensor positions = self.unsqueeze(-1);
  return tg::zeros(sizes, TensorOptions().dtype(kLong).device(self.device()))
      .scatter_add(-1, positions, tg::ones_like(positions));
}

}  // namespace tg::native
