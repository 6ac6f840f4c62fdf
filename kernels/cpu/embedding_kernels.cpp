// CPU kernel of embedding_dense_backward: grad_weight[k] = sum of the rows of grad_output whose
// index is k (never padding_idx), each divided by the count of k when scale_grad_by_freq.
#include <vector>

#include "NativeFunctions.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "dtype_dispatch.h"

namespace tg {

Tensor native::embedding_dense_backward_cpu(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                            int64_t padding_idx, bool scale_grad_by_freq) {
  TG_CHECK_TYPE(indices.scalar_type() == kLong || indices.scalar_type() == kInt, "[embedding_backward] expected ",
                "indices of dtype int64 or int32, got ", indices.scalar_type());
  TG_CHECK_VALUE(num_weights >= 0, "[embedding_backward] num_weights must be non-negative, got ", num_weights);
  const int64_t count = indices.numel();
  TG_CHECK_VALUE(grad_output.dim() == indices.dim() + 1 &&
                     grad_output.sizes().slice(0, static_cast<size_t>(indices.dim())) == indices.sizes(),
                 "[embedding_backward] expected grad_output of shape ", indices.sizes(), " + [embedding_dim], got ",
                 grad_output.sizes());
  const int64_t width = grad_output.size(-1);
  const Tensor index_t = cpu::contiguous_as(indices, kLong);
  const int64_t* index = index_t.data_ptr<int64_t>();
  std::vector<int64_t> frequency(static_cast<size_t>(num_weights), 0);
  for (int64_t i = 0; i < count; ++i) {
    TG_CHECK_INDEX(index[i] >= 0 && index[i] < num_weights, "[embedding_backward] index ", index[i], " is out of ",
                   "range for ", num_weights, " embeddings");
    ++frequency[index[i]];
  }
  const int64_t grad_weight_sizes[] = {num_weights, width};
  Tensor grad_weight = make_empty_tensor(grad_weight_sizes, grad_output.scalar_type(), grad_output.device());
  TG_DISPATCH_FLOATING_TYPES(grad_output.scalar_type(), "embedding_backward", [&] {
    using T = opmath_t<scalar_t>;
    const Tensor grad_t = cpu::contiguous_as(grad_output, grad_output.scalar_type());
    const scalar_t* grad = grad_t.data_ptr<scalar_t>();
    std::vector<T> sums(static_cast<size_t>(num_weights * width), T(0));
    for (int64_t i = 0; i < count; ++i) {
      const int64_t k = index[i];
      if (k == padding_idx) continue;
      const T scale = scale_grad_by_freq ? T(1) / static_cast<T>(frequency[k]) : T(1);
      T* row = sums.data() + k * width;
      const scalar_t* source = grad + i * width;
      for (int64_t j = 0; j < width; ++j) row[j] += cpu::convert<T>(source[j]) * scale;
    }
    cpu::store_row(static_cast<char*>(grad_weight.data_ptr()), sizeof(scalar_t), grad_weight.scalar_type(),
                   sums.data(), num_weights * width);
  });
  return grad_weight;
}

}  // namespace tg
