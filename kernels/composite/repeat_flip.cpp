// repeat, tile, repeat_interleave, roll and flip (schemas/repeat_flip.yaml) as compositions:
// repeat is a view of self with a size-1 dim before each dim, expanded and reshaped (one copy);
// roll joins two narrows with cat; flip and the tensor form of repeat_interleave select with
// an index. Gradients, vmap and backends come from the parts.
#include <algorithm>

#include "NativeFunctions.h"
#include "core/checked_math.h"
#include "core/wrap_dim.h"
#include "tensorgen/ops.h"

namespace tg::native {

Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  TG_CHECK_VALUE(static_cast<int64_t>(repeats.size()) >= self.dim(), "[repeat] Number of dimensions of repeat ",
                 "dims can not be smaller than number of dimensions of tensor: got ", repeats.size(),
                 " repeats for a tensor of ", self.dim(), " dims");
  for (int64_t r : repeats) {
    TG_CHECK_VALUE(r >= 0, "[repeat] Trying to create tensor with negative dimension ", r, ": repeats ", repeats);
  }
  // self's sizes padded with leading ones to len(repeats): [s_0, .., s_{n-1}].
  const auto n = static_cast<int64_t>(repeats.size());
  std::vector<int64_t> padded(static_cast<size_t>(n - self.dim()), 1);
  for (int64_t s : self.sizes()) padded.push_back(s);
  // View as [1, s_0, 1, s_1, ...], expand to [r_0, s_0, r_1, s_1, ...], merge pairs.
  std::vector<int64_t> interleaved, expanded, result;
  for (int64_t d = 0; d < n; ++d) {
    const auto i = static_cast<size_t>(d);
    interleaved.insert(interleaved.end(), {1, padded[i]});
    expanded.insert(expanded.end(), {repeats[i], padded[i]});
    int64_t size = 0;
    TG_CHECK(!mul_overflows(repeats[i], padded[i], &size), "[repeat] repeats ", repeats, " of a tensor with sizes ",
             self.sizes(), " give a dim of size ", repeats[i], " * ", padded[i],
             ", which would overflow a 64-bit integer; tensors that large cannot exist");
    result.push_back(size);
  }
  return self.reshape(interleaved).expand(expanded).reshape(result);
}

Tensor tile(const Tensor& self, IntArrayRef dims) {
  std::vector<int64_t> repeats(dims.begin(), dims.end());
  if (static_cast<int64_t>(repeats.size()) < self.dim()) {
    repeats.insert(repeats.begin(), static_cast<size_t>(self.dim()) - repeats.size(), 1);
  }
  return repeat(self, repeats);
}

namespace {

void check_output_size(std::optional<int64_t> output_size, int64_t actual) {
  TG_CHECK_VALUE(!output_size || *output_size == actual, "[repeat_interleave] output_size ", *output_size,
                 " does not match the sum of repeats, ", actual);
}

}  // namespace

Tensor repeat_interleave_self_int(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                                  std::optional<int64_t> output_size) {
  TG_CHECK_VALUE(repeats >= 0, "[repeat_interleave] repeats can not be negative, got ", repeats);
  const Tensor input = dim ? self : self.reshape({-1});
  const int64_t d = maybe_wrap_dim(dim.value_or(0), std::max<int64_t>(input.dim(), 1), "repeat_interleave");
  if (input.dim() == 0) return repeat_interleave_self_int(input.reshape({1}), repeats, 0, output_size);
  check_output_size(output_size, checked_numel("repeat_interleave", {input.size(d), repeats}));
  std::vector<int64_t> expanded(input.sizes().begin(), input.sizes().end());
  expanded.insert(expanded.begin() + d + 1, repeats);
  return input.unsqueeze(d + 1).expand(expanded).flatten(d, d + 1);
}

Tensor repeat_interleave_tensor(const Tensor& repeats, std::optional<int64_t> output_size) {
  TG_CHECK_VALUE(repeats.dim() <= 1, "[repeat_interleave] repeats must be 0-dim or 1-dim, got ", repeats.dim(),
                 " dims");
  TG_CHECK_TYPE(repeats.scalar_type() == kLong || repeats.scalar_type() == kInt,
                "[repeat_interleave] repeats must be an int64 or int32 tensor, got ", repeats.scalar_type());
  // The counts decide the output's size, so they are read on the host, as LibTorch does.
  const Tensor host = repeats.to(TensorOptions().device(Device(DeviceType::CPU)).dtype(kLong)).contiguous();
  const int64_t* counts = host.data_ptr<int64_t>();
  std::vector<int64_t> index;
  for (int64_t i = 0; i < host.numel(); ++i) {
    TG_CHECK_VALUE(counts[i] >= 0, "[repeat_interleave] repeats can not be negative, got ", counts[i],
                   " at position ", i);
    index.insert(index.end(), static_cast<size_t>(counts[i]), i);
  }
  check_output_size(output_size, static_cast<int64_t>(index.size()));
  Tensor result = tg::empty({static_cast<int64_t>(index.size())}, TensorOptions().dtype(kLong));
  std::copy(index.begin(), index.end(), result.data_ptr<int64_t>());
  return result.to(TensorOptions().device(repeats.device()));
}

Tensor repeat_interleave_self_tensor(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                                     std::optional<int64_t> output_size) {
  const Tensor input = dim ? self : self.reshape({-1});
  const int64_t d = maybe_wrap_dim(dim.value_or(0), std::max<int64_t>(input.dim(), 1), "repeat_interleave");
  const int64_t size = input.dim() == 0 ? 1 : input.size(d);
  const Tensor counts = repeats.dim() == 0 || repeats.numel() == 1 ? repeats.reshape({1}).expand({size}) : repeats;
  TG_CHECK_VALUE(counts.dim() == 1 && counts.size(0) == size, "[repeat_interleave] repeats must have the same ",
                 "size as input along dim ", d, " (", size, "), got shape ", repeats.sizes());
  const Tensor index = repeat_interleave_tensor(counts, output_size);
  return (input.dim() == 0 ? input.reshape({1}) : input).index_select(d, index);
}

Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  if (dims.empty()) {
    TG_CHECK_VALUE(shifts.size() == 1, "[roll] without dims, shifts must have one element, got ", shifts);
    return native::roll(self.reshape({-1}), shifts, {0}).reshape(self.sizes());
  }
  TG_CHECK_VALUE(shifts.size() == dims.size(), "[roll] shifts and dimensions must align. shifts: ", shifts.size(),
                 ", dims: ", dims.size());
  Tensor result = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = maybe_wrap_dim(dims[i], self.dim(), "roll");
    const int64_t n = self.size(d);
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    result = tg::cat({result.narrow(d, n - s, s), result.narrow(d, 0, n - s)}, d);
  }
  // A copy even when nothing moved, as LibTorch's roll never returns a view.
  return result.is_same(self) ? self.clone() : result;
}

Tensor flip(const Tensor& self, IntArrayRef dims) {
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(self.dim(), 1)), false);
  Tensor result = self;
  for (int64_t dim : dims) {
    const int64_t d = maybe_wrap_dim(dim, self.dim(), "flip");
    TG_CHECK_VALUE(!seen[static_cast<size_t>(d)], "[flip] dim ", d, " appears multiple times in the list of dims");
    seen[static_cast<size_t>(d)] = true;
    const int64_t n = self.size(d);
    result = result.index_select(d, tg::arange(n - 1, -1, -1, TensorOptions().dtype(kLong).device(self.device())));
  }
  return result.is_same(self) ? self.clone() : result;
}

}  // namespace tg::native
