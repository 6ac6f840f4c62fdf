// Write plans of index_fill, index_copy and scatter on their tensors' device (index_write_plan.h).
#include "composite/index_write_plan.h"

#include <vector>

#include "NativeFunctions.h"

namespace tg::native::index_write_plan {

// Note [Write plans on the device]
// On the CPU the composites of index_ops.cpp read the index on the host, which costs nothing
// there and keeps LibTorch's messages. On another device that read would be a copy to the host
// and a wait for the device per call, so the same plan is built from tensor operations:
// - the written positions are counted with index_add (scatter_add for scatter) of ones into
//   zeros, whose kernels check every index on the device; a bad index is then the IndexError
//   of that kernel, with its name and the value as given (LibTorch's CUDA kernels likewise
//   report a device-side assertion of the kernel they launch);
// - the writes overridden by a later one (Note [Writes as clear and add]) come from a stable
//   sort of the targets: in each run of equal targets all but the last element are overridden.
//   The sort's order is a permutation, so scattering the flags back through it with index_add
//   reads no index value that could be out of bounds. CUDA's sort is topk's selection kernel,
//   O(n^2 / 32) for n indices (kernels/cuda/sorting.cpp): cheap for the index lengths these
//   operators see in models, slow for very long ones until sort gets a radix kernel.

Tensor wrap_negative(const Tensor& index, int64_t size) {
  return tg::where(index.lt(0), tg::where(index.ge(-size), index + size, index), index);
}

Tensor marked_positions(const Tensor& index, int64_t size) {
  const TensorOptions longs = TensorOptions().dtype(kLong).device(index.device());
  const Tensor flat = index.reshape({-1});
  return tg::zeros({size}, longs).index_add(0, flat, tg::ones({flat.numel()}, longs)).gt(0);
}

Tensor overridden_writes(const Tensor& targets) {
  const TensorOptions longs = TensorOptions().dtype(kLong).device(targets.device());
  const Tensor flat = targets.reshape({-1});
  const int64_t n = flat.numel();
  if (n < 2) return tg::zeros(targets.sizes(), TensorOptions().dtype(kBool).device(targets.device()));
  const auto [sorted, order] = tg::sort(flat, std::optional<bool>(true), 0, false);
  const Tensor same_as_next = sorted.narrow(0, 0, n - 1).eq(sorted.narrow(0, 1, n - 1)).to(kLong);
  const Tensor in_sorted_order = tg::cat({same_as_next, tg::zeros({1}, longs)});
  return tg::zeros({n}, longs).index_add(0, order, in_sorted_order).gt(0).reshape(targets.sizes());
}

Tensor scatter_targets(const Tensor& index, int64_t dim, IntArrayRef self_sizes) {
  const int64_t nd = index.dim();
  std::vector<int64_t> strides(static_cast<size_t>(nd), 1);
  for (int64_t d = nd - 2; d >= 0; --d) {
    strides[static_cast<size_t>(d)] = strides[static_cast<size_t>(d + 1)] * self_sizes[static_cast<size_t>(d + 1)];
  }
  Tensor targets = index * strides[static_cast<size_t>(dim)];
  for (int64_t d = 0; d < nd; ++d) {
    if (d == dim) continue;
    std::vector<int64_t> along(static_cast<size_t>(nd), 1);
    along[static_cast<size_t>(d)] = index.size(d);
    const Tensor coordinate = tg::arange(index.size(d), TensorOptions().dtype(kLong).device(index.device()));
    targets = targets + coordinate.reshape(along) * strides[static_cast<size_t>(d)];
  }
  return targets;
}

}  // namespace tg::native::index_write_plan
