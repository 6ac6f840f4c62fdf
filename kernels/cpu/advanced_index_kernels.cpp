// CPU kernels of advanced indexing (index.Tensor, index_put_) over the plan of
// kernels/advanced_index.h: one walk over the positions of the result R, in row-major order,
// reading or writing self at each position's offset. index_put_ without accumulate writes the
// positions in that order, so of repeated positions the last one's value stays.
#include <cstring>

#include "NativeFunctions.h"
#include "TensorMethods.h"
#include "advanced_index.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "dtype_dispatch.h"
#include "element_size_dispatch.h"
#include "ops/structured.h"
#include "scalar_math.h"

namespace tg {

namespace {

// Calls fn(self_offset, other_offset) for every position p of R in row-major order, where
// other is a tensor over R with `other_strides` (the result, or values broadcast to R).
// Offsets are in elements; index values are wrapped (their bounds are checked before).
template <typename Fn>
void for_each_position(const AdvancedIndex& plan, IntArrayRef other_strides, Fn&& fn) {
  DimVector sizes = plan.result_sizes, self_strides = plan.self_strides, others(other_strides);
  std::vector<DimVector> index_strides = plan.index_strides;
  if (sizes.empty()) {  // a 0-dim R: one position
    sizes.push_back(1);
    self_strides.push_back(0);
    others.push_back(0);
    for (DimVector& strides : index_strides) strides.push_back(0);
  }
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) return;
  const size_t ndim = sizes.size(), count = plan.indices.size(), last = ndim - 1;
  std::vector<const int64_t*> index_data;
  for (const Tensor& index : plan.indices) index_data.push_back(index.data_ptr<int64_t>());
  DimVector position(ndim, 0);
  std::vector<int64_t> index_base(count);
  const int64_t inner = sizes[last];
  for (int64_t start = 0; start < numel; start += inner) {
    int64_t self_base = 0, other_base = 0;
    std::fill(index_base.begin(), index_base.end(), 0);
    for (size_t r = 0; r < last; ++r) {
      self_base += position[r] * self_strides[r];
      other_base += position[r] * others[r];
      for (size_t j = 0; j < count; ++j) index_base[j] += position[r] * index_strides[j][r];
    }
    for (int64_t i = 0; i < inner; ++i) {
      int64_t offset = self_base + i * self_strides[last];
      for (size_t j = 0; j < count; ++j) {
        const int64_t value = index_data[j][index_base[j] + i * index_strides[j][last]];
        offset += (value < 0 ? value + plan.indexed_sizes[j] : value) * plan.indexed_strides[j];
      }
      fn(offset, other_base + i * others[last]);
    }
    for (size_t r = last; r-- > 0;) {  // the next row of R
      if (++position[r] < sizes[r]) break;
      position[r] = 0;
    }
  }
}

}  // namespace

Tensor native::index_cpu(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  const AdvancedIndex plan = make_advanced_index("index", self, indices);
  check_advanced_index_bounds("index", plan);
  Tensor out = make_empty_tensor(plan.result_sizes, self.scalar_type(), self.device());
  dispatch_element_size(static_cast<size_t>(self.element_size()), [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* src = static_cast<const U*>(self.data_ptr());
    U* dst = static_cast<U*>(out.data_ptr());
    for_each_position(plan, out.strides(), [&](int64_t from, int64_t to) { dst[to] = src[from]; });
  });
  return out;
}

Tensor native::index_out_cpu(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& out) {
  TG_CHECK_TYPE(out.scalar_type() == self.scalar_type(), "[index.Tensor_out] self (", self.scalar_type(),
                ") and out (", out.scalar_type(), ") must have the same scalar type");
  const Tensor result = index_cpu(self, indices);
  resize_output(out, result.sizes());
  cpu::copy_into(out, result);
  return out;
}

Tensor native::index_put_cpu_(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                              const Tensor& values, bool accumulate) {
  const AdvancedIndex plan = make_advanced_index("index_put_", self, indices);
  check_index_put_values(self, values, plan);
  check_advanced_index_bounds("index_put_", plan);
  // values that overlap self are refused before the kernel (the wrapper's overlap check, as LibTorch).
  const Tensor source = values.expand(plan.result_sizes);
  if (accumulate) {
    TG_DISPATCH_ALL_TYPES(self.scalar_type(), "index_put_", [&] {
      using T = opmath_t<scalar_t>;
      scalar_t* dst = static_cast<scalar_t*>(self.data_ptr());
      const scalar_t* src = static_cast<const scalar_t*>(source.data_ptr());
      for_each_position(plan, source.strides(), [&](int64_t to, int64_t from) {
        dst[to] = cpu::convert<scalar_t>(math::add(cpu::convert<T>(dst[to]), cpu::convert<T>(src[from])));
      });
    });
    return self;
  }
  dispatch_element_size(static_cast<size_t>(self.element_size()), [&](auto tag) {
    using U = typename decltype(tag)::type;
    U* dst = static_cast<U*>(self.data_ptr());
    const U* src = static_cast<const U*>(source.data_ptr());
    for_each_position(plan, source.strides(), [&](int64_t to, int64_t from) { dst[to] = src[from]; });
  });
  return self;
}

}  // namespace tg
