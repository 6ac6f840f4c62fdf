// MultiheadAttention, as LibTorch's: inputs are [L, N, E] (sequence first), one in-projection
// in_proj_weight [3E, E] / in_proj_bias [3E] for query, key and value, heads of E / num_heads,
// and out_proj (a Linear). forward returns (output [L, N, E], weights [N, L, S] averaged over
// heads, or [N, heads, L, S], or undefined when need_weights is false). Masks follow PyTorch:
// a bool attn_mask or key_padding_mask is true where attention is NOT allowed; a float mask is
// added to the scores. kdim/vdim other than embed_dim, add_bias_kv and add_zero_attn are not
// supported yet (tg::Error; docs/porting.md).
#pragma once

#include <tuple>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/modules/linear.h"
#include "nn/options/activation.h"

namespace tg::nn {

class MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);

  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {}, bool average_attn_weights = true);

  MultiheadAttentionOptions options;
  Tensor in_proj_weight;  // [3 embed_dim, embed_dim]
  Tensor in_proj_bias;    // [3 embed_dim], undefined without bias
  Linear out_proj = nullptr;
  int64_t head_dim = 0;
};
TG_MODULE(MultiheadAttention);

}  // namespace tg::nn
