// scaled_dot_product_attention as its definition (ATen's math path):
//   softmax(query key^T * scale + mask) value
// over the last two dims, composed of matmul, masked_fill, softmax and dropout, so autograd
// flows through the parts.
#include <cmath>
#include <limits>

#include "NativeFunctions.h"
#include "tensorgen/ops.h"

namespace tg::native {

namespace {

// key or value with each of its heads (dim -3) repeated for `groups` consecutive query heads.
Tensor repeat_heads(const Tensor& t, int64_t groups) {
  if (groups == 1) return t;
  std::vector<int64_t> expanded = t.sizes().vec();
  expanded.insert(expanded.end() - 2, groups);  // [..., H, groups, S, E]
  std::vector<int64_t> merged = t.sizes().vec();
  merged[merged.size() - 3] *= groups;
  return t.unsqueeze(-3).expand(expanded).reshape(merged);
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa) {
  const char* op = "[scaled_dot_product_attention] ";
  TG_CHECK_VALUE(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2, op, "expected query, key and value of at ",
                 "least 2 dims ([..., L, E], [..., S, E], [..., S, Ev]), got ", query.sizes(), ", ", key.sizes(),
                 " and ", value.sizes());
  TG_CHECK_TYPE(query.scalar_type() == key.scalar_type() && query.scalar_type() == value.scalar_type(), op,
                "expected query, key and value of one dtype, got ", query.scalar_type(), ", ", key.scalar_type(),
                " and ", value.scalar_type());
  TG_CHECK_VALUE(query.size(-1) == key.size(-1), op, "expected query and key to have the same embedding dimension, ",
                 "got ", query.sizes(), " and ", key.sizes());
  TG_CHECK_VALUE(key.size(-2) == value.size(-2), op, "expected key and value to have the same sequence length, got ",
                 key.sizes(), " and ", value.sizes());
  TG_CHECK_VALUE(dropout_p >= 0.0 && dropout_p < 1.0, op, "dropout_p must be in [0, 1), got ", dropout_p);
  const bool has_mask = attn_mask && attn_mask->defined();
  TG_CHECK_VALUE(!(is_causal && has_mask), op, "explicit attn_mask should not be set when is_causal=True");
  Tensor k = key, v = value;
  if (enable_gqa) {
    TG_CHECK_VALUE(query.dim() >= 3 && key.dim() >= 3 && query.size(-3) % key.size(-3) == 0 &&
                       key.size(-3) == value.size(-3),
                   op, "enable_gqa needs the query heads (dim -3) to be a multiple of the key and value heads, got ",
                   query.sizes(), ", ", key.sizes(), " and ", value.sizes());
    k = repeat_heads(key, query.size(-3) / key.size(-3));
    v = repeat_heads(value, query.size(-3) / value.size(-3));
  }
  const double factor = scale.value_or(1.0 / std::sqrt(static_cast<double>(query.size(-1))));
  const double minus_infinity = -std::numeric_limits<double>::infinity();
  Tensor scores = tg::matmul(query * factor, k.transpose(-2, -1));
  if (is_causal) {
    // Key position j > query position i is masked: the strict upper triangle.
    const Tensor future = tg::ones({query.size(-2), key.size(-2)}, TensorOptions().dtype(kBool).device(query.device()))
                              .triu(1);
    scores = scores.masked_fill(future, minus_infinity);
  } else if (has_mask) {
    scores = attn_mask->scalar_type() == kBool ? scores.masked_fill(*attn_mask == false, minus_infinity)
                                               : scores + *attn_mask;
  }
  Tensor weights = tg::softmax(scores, -1);
  if (dropout_p > 0.0) weights = tg::dropout(weights, dropout_p, /*train=*/true);
  return tg::matmul(weights, v);
}

}  // namespace tg::native
