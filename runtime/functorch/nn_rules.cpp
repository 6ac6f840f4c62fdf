// Batching rules of the nn family: ops over a leading N dim (pooling, im2col) fold the vmap
// batch into N; convolution uses its `groups` to run one convolution per sample's weight, as
// functorch's BatchRulesConvolution does; embedding offsets the indices into a stacked table;
// layer norm and nll_loss are computed per sample with the affine part / the reduction outside.
#include <mutex>
#include <unordered_map>

#include "Functions.h"
#include "TensorMethods.h"
#include "core/error.h"
#include "core/reduction.h"
#include "ops/tensor_operators.h"
#include "functorch/batch_frame.h"
#include "functorch/batched_tensor.h"
#include "functorch/batching_rules.h"

namespace tg::functorch {
namespace {

struct FoldRanks {
  std::mutex mutex;
  std::unordered_map<std::string, int64_t> ranks;  // op -> rank of its input with the N dim
};

FoldRanks& fold_ranks() {
  static FoldRanks r;  // function-local: filled during static initialization
  return r;
}

void push_args(Stack* stack, const BatchFrame& f) {
  for (const IValue& v : f.args) stack->push_back(v);
}

// [B, N, rest...] -> [B * N, rest...] (a view when it can be).
Tensor fold(const Tensor& t) {
  std::vector<int64_t> sizes{t.size(0) * t.size(1)};
  sizes.insert(sizes.end(), t.sizes().begin() + 2, t.sizes().end());
  return t.reshape(sizes);
}

// [B * N, rest...] -> [B, N, rest...].
Tensor unfold_batch(const Tensor& t, int64_t batch) {
  std::vector<int64_t> sizes{batch, t.size(0) / batch};
  sizes.insert(sizes.end(), t.sizes().begin() + 1, t.sizes().end());
  return t.reshape(sizes);
}

const Tensor* tensor_arg(const BatchFrame& f, size_t i) {
  return f.args[i].isTensor() && f.args[i].toTensor().defined() ? &f.args[i].toTensor() : nullptr;
}

bool batched_at(const BatchFrame& f, size_t i) {
  const Tensor* t = tensor_arg(f, i);
  return t != nullptr && physical_at(*t, f.level).has_value();
}

// Convolution's channels-with-batch layout: input [B, (N,) C, ...] -> [N or 1, B * C, ...].
Tensor channels_with_batch(const Tensor& front, bool has_n) {
  Tensor x = has_n ? front.transpose(0, 1) : front.unsqueeze(0);  // [N, B, C, ...]
  std::vector<int64_t> sizes{x.size(0), x.size(1) * x.size(2)};
  sizes.insert(sizes.end(), x.sizes().begin() + 3, x.sizes().end());
  return x.reshape(sizes);
}

// The inverse: [N or 1, B * C, ...] -> [B, (N,) C, ...].
Tensor batch_from_channels(const Tensor& t, int64_t batch, bool has_n) {
  std::vector<int64_t> sizes{t.size(0), batch, t.size(1) / batch};
  sizes.insert(sizes.end(), t.sizes().begin() + 2, t.sizes().end());
  Tensor x = t.reshape(sizes);
  return has_n ? x.transpose(0, 1) : x.squeeze(0);
}

// [B, O, ...] -> [B * O, ...].
Tensor flatten_front(const Tensor& t) { return fold(t); }

}  // namespace

void declare_fold(std::string_view op, int64_t rank) {
  std::lock_guard<std::mutex> lock(fold_ranks().mutex);
  fold_ranks().ranks["tg::" + std::string(op)] = rank;
}

void batch_rule_fold(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  int64_t full = -1;
  {
    std::lock_guard<std::mutex> lock(fold_ranks().mutex);
    auto it = fold_ranks().ranks.find(op.operator_name().str());
    if (it != fold_ranks().ranks.end()) full = it->second;
  }
  BatchFrame f(op, stack);
  size_t first = f.args.size();
  for (size_t i = 0; i < f.args.size() && first == f.args.size(); ++i) {
    if (tensor_arg(f, i) != nullptr) first = i;
  }
  TG_INTERNAL_ASSERT(full > 0 && first < f.args.size(), "fold rule without a declared rank or a tensor");
  const int64_t rank = logical_rank(f.args[first].toTensor());
  const bool has_n = rank == full;
  std::vector<IValue> args = f.args;
  for (size_t i = 0; i < args.size(); ++i) {
    const Tensor* t = tensor_arg(f, i);
    if (t == nullptr) continue;
    if (logical_rank(*t) != rank) {
      if (!batched_at(f, i)) continue;  // e.g. a weight: the same for every sample
      push_args(stack, f);
      return batch_fallback(op, ks, stack);
    }
    Tensor front = batched_front(*t, f.level, f.batch_size);
    args[i] = has_n ? fold(front) : front;
  }
  std::vector<IValue> out = f.call(std::move(args));
  if (has_n) {
    for (IValue& v : out) {
      if (v.isTensor() && v.toTensor().defined()) v = unfold_batch(v.toTensor(), f.batch_size);
    }
  }
  f.push_batched(stack, std::move(out));
}

void batch_rule_conv(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  // convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
  // Both paths below serve transposed convolutions too: a transposed weight is [C_in, C_out /
  // groups, k...], so B per-sample weights flattened to [B * C_in, ...] with B * groups groups
  // map sample b's input channels to its own output channels, as for the plain layout.
  const Tensor& input = f.args[0].toTensor();
  const Tensor& weight = f.args[1].toTensor();
  const bool has_n = logical_rank(input) == logical_rank(weight);
  const int64_t batch = f.batch_size;
  std::vector<IValue> args = f.args;
  Tensor x = batched_front(input, f.level, batch);
  if (!batched_at(f, 1)) {
    // One weight for every sample: the batch joins N; a batched bias is added afterwards.
    args[0] = has_n ? fold(x) : x;
    const bool bias_batched = batched_at(f, 2);
    if (bias_batched) args[2] = IValue();
    Tensor out = f.call(std::move(args))[0].toTensor();
    if (has_n) out = unfold_batch(out, batch);
    if (bias_batched) {
      Tensor b = *physical_at(f.args[2].toTensor(), f.level);  // [B, O]
      std::vector<int64_t> shape{batch};
      if (has_n) shape.push_back(1);
      shape.push_back(b.size(1));
      while (static_cast<int64_t>(shape.size()) < out.dim()) shape.push_back(1);
      out = out + b.reshape(shape);
    }
    return f.push_batched(stack, {out});
  }
  // A weight per sample: B * groups groups over the channels of all samples side by side.
  args[0] = channels_with_batch(x, has_n);
  args[1] = flatten_front(batched_front(weight, f.level, batch));
  if (const Tensor* b = tensor_arg(f, 2)) args[2] = flatten_front(batched_front(*b, f.level, batch));
  args[8] = f.args[8].toInt() * batch;
  Tensor out = f.call(std::move(args))[0].toTensor();
  f.push_batched(stack, {batch_from_channels(out, batch, has_n)});
}

void batch_rule_conv_backward(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  BatchFrame f(op, stack);
  // convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
  //                      transposed, output_padding, groups, output_mask)
  if (f.args[7].toBool()) {
    push_args(stack, f);
    return batch_fallback(op, ks, stack);
  }
  const int64_t batch = f.batch_size;
  const bool has_n = logical_rank(f.args[1].toTensor()) == logical_rank(f.args[2].toTensor());
  // Every operand batched (expanded where it is not): each sample's weight gradient is its own.
  std::vector<IValue> args = f.args;
  args[0] = channels_with_batch(batched_front(f.args[0].toTensor(), f.level, batch), has_n);
  args[1] = channels_with_batch(batched_front(f.args[1].toTensor(), f.level, batch), has_n);
  args[2] = flatten_front(batched_front(f.args[2].toTensor(), f.level, batch));
  if (f.args[3].isIntList()) {
    std::vector<int64_t> sizes = f.args[3].toIntList().vec();
    if (!sizes.empty()) sizes[0] *= batch;
    args[3] = sizes;
  }
  args[9] = f.args[9].toInt() * batch;
  std::vector<IValue> out = f.call(std::move(args));
  const int64_t out_channels = f.args[2].toTensor().size(0);
  if (out[0].isTensor() && out[0].toTensor().defined()) out[0] = batch_from_channels(out[0].toTensor(), batch, has_n);
  if (out[1].isTensor() && out[1].toTensor().defined()) out[1] = unfold_batch(out[1].toTensor(), batch);
  if (out[2].isTensor() && out[2].toTensor().defined()) out[2] = out[2].toTensor().reshape({batch, out_channels});
  f.push_batched(stack, std::move(out));
}

void batch_rule_embedding(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  BatchFrame f(op, stack);
  // embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)
  const int64_t batch = f.batch_size;
  std::vector<IValue> args = f.args;
  Tensor indices = batched_front(f.args[1].toTensor(), f.level, batch);
  if (!batched_at(f, 0)) {
    args[1] = indices;  // one table: the batch is one more index dim
    return f.push_batched(stack, f.call(std::move(args)));
  }
  if (f.args[2].toInt() >= 0) {
    // padding_idx names a row of each sample's table; the stacked table has B of them.
    push_args(stack, f);
    return batch_fallback(op, ks, stack);
  }
  // A table per sample: stacked into one [B * V, D] table, indices offset by b * V.
  Tensor table = *physical_at(f.args[0].toTensor(), f.level);
  const int64_t rows = table.size(1);
  std::vector<int64_t> offset_shape(static_cast<size_t>(indices.dim()), 1);
  offset_shape[0] = batch;
  Tensor offsets = tg::arange(batch, TensorOptions().dtype(indices.scalar_type()).device(indices.device())) * rows;
  args[0] = fold(table);
  args[1] = indices + offsets.reshape(offset_shape);
  f.push_batched(stack, f.call(std::move(args)));
}

void batch_rule_embedding_backward(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  // embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq)
  const int64_t batch = f.batch_size;
  const int64_t rows = f.args[2].toInt();
  const int64_t padding_idx = f.args[3].toInt();
  Tensor indices = batched_front(f.args[1].toTensor(), f.level, batch);
  std::vector<int64_t> offset_shape(static_cast<size_t>(indices.dim()), 1);
  offset_shape[0] = batch;
  Tensor offsets = tg::arange(batch, TensorOptions().dtype(indices.scalar_type()).device(indices.device())) * rows;
  // Each sample's gradient goes to its own block of rows of one [B * V, D] table; the padding
  // row of every block is zeroed afterwards (the op itself knows only one padding row).
  std::vector<IValue> args = f.args;
  args[0] = batched_front(f.args[0].toTensor(), f.level, batch);
  args[1] = indices + offsets.reshape(offset_shape);
  args[2] = rows * batch;
  args[3] = static_cast<int64_t>(-1);
  Tensor out = unfold_batch(f.call(std::move(args))[0].toTensor(), batch);  // [B, V, D]
  if (padding_idx >= 0 && padding_idx < rows) {
    Tensor keep = tg::ones({rows}, TensorOptions().dtype(out.scalar_type()).device(out.device()));
    keep.narrow(0, padding_idx, 1).zero_();
    out = out * keep.reshape({1, rows, 1});
  }
  f.push_batched(stack, {out});
}

void batch_rule_layer_norm(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  // native_layer_norm(input, normalized_shape, weight, bias, eps) -> (out, mean, rstd)
  const int64_t batch = f.batch_size;
  const int64_t rank = logical_rank(f.args[0].toTensor());
  std::vector<IValue> args = f.args;
  args[0] = batched_front(f.args[0].toTensor(), f.level, batch);
  const bool affine_batched = batched_at(f, 2) || batched_at(f, 3);
  if (!affine_batched) return f.push_batched(stack, f.call(std::move(args)));
  // A weight or bias per sample: normalize without them, then scale and shift per sample.
  args[2] = IValue();
  args[3] = IValue();
  std::vector<IValue> out = f.call(std::move(args));
  Tensor y = out[0].toTensor();
  auto per_sample = [&](const Tensor& t) {
    Tensor p = batched_front(t, f.level, batch);
    std::vector<int64_t> shape{batch};
    for (int64_t d = 0; d < rank - logical_rank(t); ++d) shape.push_back(1);
    shape.insert(shape.end(), p.sizes().begin() + 1, p.sizes().end());
    return p.reshape(shape);
  };
  if (const Tensor* w = tensor_arg(f, 2)) y = y * per_sample(*w);
  if (const Tensor* b = tensor_arg(f, 3)) y = y + per_sample(*b);
  out[0] = y;
  f.push_batched(stack, std::move(out));
}

void batch_rule_nll_loss(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  BatchFrame f(op, stack);
  // nll_loss_forward(self, target, weight, reduction, ignore_index) -> (output, total_weight)
  if (batched_at(f, 2)) {
    push_args(stack, f);
    return batch_fallback(op, ks, stack);  // a class weight per sample
  }
  const int64_t batch = f.batch_size;
  const bool has_n = logical_rank(f.args[0].toTensor()) == 2;
  const int64_t reduction = f.args[3].toInt();
  const int64_t ignore_index = f.args[4].toInt();
  Tensor x = batched_front(f.args[0].toTensor(), f.level, batch);
  Tensor target = batched_front(f.args[1].toTensor(), f.level, batch);
  std::vector<IValue> args = f.args;
  args[0] = has_n ? fold(x) : x;
  args[1] = has_n ? fold(target) : target;
  args[3] = static_cast<int64_t>(Reduction::None);
  Tensor losses = f.call(std::move(args))[0].toTensor();  // [B * N] or [B]
  // Each sample's total weight: the sum of w[t] over its targets that are not ignored.
  Tensor flat_target = has_n ? fold(target) : target;
  Tensor valid = tg::ne(flat_target, Scalar(ignore_index)).to(losses.scalar_type());
  Tensor weights = valid;
  if (const Tensor* w = tensor_arg(f, 2)) {
    Tensor safe = tg::where(tg::ne(flat_target, Scalar(ignore_index)), flat_target, tg::zeros_like(flat_target));
    weights = w->index_select(0, safe.reshape({-1})).reshape(flat_target.sizes()) * valid;
  }
  Tensor total_weight = has_n ? weights.reshape({batch, -1}).sum(std::vector<int64_t>{1}, false) : weights;
  Tensor per_sample = has_n ? losses.reshape({batch, -1}) : losses;
  Tensor output = per_sample;
  if (reduction != Reduction::None) {
    Tensor total = has_n ? per_sample.sum(std::vector<int64_t>{1}, false) : per_sample;
    output = reduction == Reduction::Mean ? total / total_weight : total;
  }
  f.push_batched(stack, {output, total_weight});
}

}  // namespace tg::functorch
