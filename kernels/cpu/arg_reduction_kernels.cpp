// CPU kernels of the reductions that return positions: max.dim (values and indices) and
// argmax. Ties give the first index; NaN counts as the maximum (its first occurrence wins).
#include <memory>

#include "NativeFunctions.h"
#include "cpu/convert.h"
#include "cpu/copy.h"
#include "dim_blocks.h"
#include "dtype_dispatch.h"
#include "scalar_math.h"

namespace tg {

namespace {

using ReductionBlocks = DimBlocks;

// Whether x replaces the current maximum `best`: strictly greater, or the first NaN.
template <typename T>
bool beats(T x, T best) {
  return !math::is_nan(best) && (x > best || math::is_nan(x));
}

// indices[o * inner + i] = first r maximising data[(o * size + r) * inner + i], and
// values[...] the maximum when values is not null. data is contiguous.
template <typename scalar_t>
void max_with_indices(const scalar_t* data, const ReductionBlocks& b, scalar_t* values, int64_t* indices) {
  using T = opmath_t<scalar_t>;
  if (b.inner == 1) {  // reducing the innermost dim (or a flattened tensor): one scan per block
    for (int64_t o = 0; o < b.outer; ++o) {
      const scalar_t* block = data + o * b.size;
      T best = static_cast<T>(block[0]);
      int64_t index = 0;
      for (int64_t r = 1; r < b.size; ++r) {
        const T x = static_cast<T>(block[r]);
        if (beats(x, best)) {
          best = x;
          index = r;
        }
      }
      indices[o] = index;
      if (values != nullptr) values[o] = block[index];
    }
    return;
  }
  // Not std::vector: T may be bool.
  const std::unique_ptr<T[]> best(new T[static_cast<size_t>(b.inner)]);
  for (int64_t o = 0; o < b.outer; ++o) {
    const scalar_t* block = data + o * b.size * b.inner;
    int64_t* index = indices + o * b.inner;
    for (int64_t i = 0; i < b.inner; ++i) {
      best[i] = static_cast<T>(block[i]);
      index[i] = 0;
    }
    for (int64_t r = 1; r < b.size; ++r) {
      const scalar_t* row = block + r * b.inner;
      for (int64_t i = 0; i < b.inner; ++i) {
        const T x = static_cast<T>(row[i]);
        if (beats(x, best[i])) {
          best[i] = x;
          index[i] = r;
        }
      }
    }
    if (values != nullptr) {
      for (int64_t i = 0; i < b.inner; ++i) values[o * b.inner + i] = block[index[i] * b.inner + i];
    }
  }
}

Tensor contiguous_input(const Tensor& self) { return self.is_contiguous() ? self : cpu::contiguous_copy(self); }

}  // namespace

// `max` receives the values and `max_values` the indices (the schema's out names).
void native::max_out_cpu(const Tensor& self, int64_t dim, bool /*keepdim*/, const Tensor& max,
                         const Tensor& max_values) {
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "max");
  const Tensor input = contiguous_input(self);
  TG_DISPATCH_ALL_TYPES(self.scalar_type(), "max", [&] {
    max_with_indices(input.data_ptr<scalar_t>(), blocks_around(input.sizes(), d), max.data_ptr<scalar_t>(),
                     max_values.data_ptr<int64_t>());
  });
}

void native::argmax_out_cpu(const Tensor& self, std::optional<int64_t> dim, bool /*keepdim*/, const Tensor& out) {
  const Tensor input = contiguous_input(self);
  // Without a dim the flattened tensor is one block.
  const ReductionBlocks blocks = dim.has_value() ? blocks_around(input.sizes(), maybe_wrap_dim(*dim, self.dim(), "argmax"))
                                                 : ReductionBlocks{1, input.numel(), 1};
  TG_DISPATCH_NUMERIC_TYPES(self.scalar_type(), "argmax", [&] {
    max_with_indices<scalar_t>(input.data_ptr<scalar_t>(), blocks, nullptr, out.data_ptr<int64_t>());
  });
}

}  // namespace tg
