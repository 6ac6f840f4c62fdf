#include "nn/modules/multihead_attention.h"

#include <cmath>
#include <limits>
#include <ostream>

#include "nn/functional/dropout.h"
#include "nn/functional/linear.h"
#include "nn/init.h"
#include "tensorgen/ops.h"

namespace tg::nn {
namespace {

// A mask as a float tensor added to the scores: bool true -> -inf, float as given.
Tensor additive_mask(const Tensor& mask, ScalarType dtype) {
  if (mask.dtype() == kBool) {
    return tg::zeros(mask.sizes(), TensorOptions().dtype(dtype).device(mask.device()))
        .masked_fill(mask, -std::numeric_limits<double>::infinity());
  }
  TG_CHECK(mask.is_floating_point(), "[nn::MultiheadAttention] a mask must be bool or floating point, got ", mask.dtype());
  return mask.to(dtype);
}

}  // namespace

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options_) : options(options_) {
  const int64_t e = options.embed_dim(), h = options.num_heads();
  TG_CHECK(e > 0 && h > 0 && e % h == 0, "[nn::MultiheadAttention] embed_dim must be a positive multiple of num_heads, got embed_dim=",
           e, " and num_heads=", h);
  TG_CHECK(options.kdim() == e && options.vdim() == e, "[nn::MultiheadAttention] kdim and vdim other than embed_dim (",
           e, ") are not supported yet, got kdim=", options.kdim(), " and vdim=", options.vdim());
  TG_CHECK(!options.add_bias_kv() && !options.add_zero_attn(),
           "[nn::MultiheadAttention] add_bias_kv and add_zero_attn are not supported yet");
  TG_CHECK(options.dropout() >= 0 && options.dropout() <= 1, "[nn::MultiheadAttention] dropout must be within [0, 1], got ",
           options.dropout());
  reset();
}

void MultiheadAttentionImpl::reset() {
  const int64_t e = options.embed_dim();
  head_dim = e / options.num_heads();
  in_proj_weight = register_parameter("in_proj_weight", tg::empty({3 * e, e}));
  in_proj_bias = register_parameter("in_proj_bias", options.bias() ? tg::empty({3 * e}) : Tensor(), options.bias());
  out_proj = register_module("out_proj", Linear(LinearOptions(e, e).bias(options.bias())));
  reset_parameters();
}

void MultiheadAttentionImpl::reset_parameters() {
  init::xavier_uniform_(in_proj_weight);
  if (in_proj_bias.defined()) {
    init::zeros_(in_proj_bias);
    init::zeros_(out_proj->bias);
  }
}

void MultiheadAttentionImpl::pretty_print(std::ostream& stream) const {
  stream << "tg::nn::MultiheadAttention(embed_dim=" << options.embed_dim() << ", num_heads=" << options.num_heads()
         << ", dropout=" << options.dropout() << ")";
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                           const Tensor& key_padding_mask, bool need_weights,
                                                           const Tensor& attn_mask, bool average_attn_weights) {
  const int64_t e = options.embed_dim(), h = options.num_heads();
  TG_CHECK(query.dim() == 3 && key.dim() == 3 && value.dim() == 3 && query.size(2) == e && key.size(2) == e &&
               value.size(2) == e && key.size(0) == value.size(0) && query.size(1) == key.size(1) &&
               key.size(1) == value.size(1),
           "[nn::MultiheadAttention] expected query [L, N, ", e, "] and key, value [S, N, ", e, "], got ", query.sizes(),
           ", ", key.sizes(), " and ", value.sizes());
  const int64_t target_length = query.size(0), batch = query.size(1), source_length = key.size(0);

  // Project and split into heads: [len, N, E] -> [N, heads, len, head_dim].
  auto project = [&](const Tensor& x, int64_t part) {
    const Tensor w = in_proj_weight.narrow(0, part * e, e);
    const Tensor b = in_proj_bias.defined() ? in_proj_bias.narrow(0, part * e, e) : Tensor();
    return functional::linear(x, w, b).view({x.size(0), batch, h, head_dim}).permute({1, 2, 0, 3});
  };
  const Tensor q = project(query, 0), k = project(key, 1), v = project(value, 2);

  Tensor mask;  // additive, broadcastable to [N, heads, L, S]
  if (attn_mask.defined()) {
    if (attn_mask.dim() == 2) {
      TG_CHECK(attn_mask.size(0) == target_length && attn_mask.size(1) == source_length,
               "[nn::MultiheadAttention] a 2-d attn_mask must be [", target_length, ", ", source_length, "], got ",
               attn_mask.sizes());
      mask = additive_mask(attn_mask, q.dtype());
    } else {
      TG_CHECK(attn_mask.dim() == 3 && attn_mask.size(0) == batch * h && attn_mask.size(1) == target_length &&
                   attn_mask.size(2) == source_length,
               "[nn::MultiheadAttention] a 3-d attn_mask must be [", batch * h, ", ", target_length, ", ",
               source_length, "], got ", attn_mask.sizes());
      mask = additive_mask(attn_mask, q.dtype()).view({batch, h, target_length, source_length});
    }
  }
  if (key_padding_mask.defined()) {
    TG_CHECK(key_padding_mask.dim() == 2 && key_padding_mask.size(0) == batch && key_padding_mask.size(1) == source_length,
             "[nn::MultiheadAttention] key_padding_mask must be [", batch, ", ", source_length, "], got ",
             key_padding_mask.sizes());
    const Tensor padding = additive_mask(key_padding_mask, q.dtype()).view({batch, 1, 1, source_length});
    mask = mask.defined() ? mask + padding : padding;
  }

  const double dropout_p = is_training() ? options.dropout() : 0.0;
  Tensor attended, weights;
  if (need_weights) {
    Tensor scores = tg::matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(head_dim)));
    if (mask.defined()) scores = scores + mask;
    weights = tg::softmax(scores, -1);
    attended = tg::matmul(functional::dropout(weights, functional::DropoutFuncOptions().p(dropout_p).training(dropout_p > 0)), v);
    if (average_attn_weights) weights = weights.mean({1});
  } else {
    attended = tg::scaled_dot_product_attention(q, k, v, mask.defined() ? std::optional<Tensor>(mask) : std::nullopt,
                                                dropout_p);
  }
  // [N, heads, L, head_dim] -> [L, N, E].
  const Tensor output = out_proj(attended.permute({2, 0, 1, 3}).reshape({target_length, batch, e}));
  return {output, weights};
}

}  // namespace tg::nn
