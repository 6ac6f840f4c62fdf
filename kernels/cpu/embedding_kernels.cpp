// CPU kernel of embedding_dense_backward: grad_weight[k] = sum of the rows of grad_output whose
// index is k (never padding_idx), each divided by the count of k when scale_grad_by_freq.
#include <vector>

#include "NativeFunctions.h"
#include "core/host_buffer.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "dtype_dispatch.h"
#include "nn_rules.h"

namespace tg {

Tensor native::embedding_dense_backward_cpu(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                            int64_t padding_idx, bool scale_grad_by_freq) {
  const EmbeddingIndices checked = check_embedding_backward(grad_output, indices, num_weights);
  const int64_t count = checked.indices.numel();
  const int64_t* index = checked.indices.data_ptr<int64_t>();
  const HostVector<int64_t>& frequency = checked.frequency;
  const int64_t width = grad_output.size(-1);
  const int64_t grad_weight_sizes[] = {num_weights, width};
  Tensor grad_weight = make_empty_tensor(grad_weight_sizes, grad_output.scalar_type(), grad_output.device());
  TG_DISPATCH_FLOATING_TYPES(grad_output.scalar_type(), "embedding_backward", [&] {
    using T = opmath_t<scalar_t>;
    const Tensor grad_t = cpu::contiguous_as(grad_output, grad_output.scalar_type());
    const scalar_t* grad = grad_t.data_ptr<scalar_t>();
    // grad_weight's allocation above already checked num_weights * width for overflow.
    HostVector<T> sums = host_buffer<T>("embedding_backward", grad_weight.numel(), T(0));
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
