// Shape arithmetic shared by kernels and meta functions: broadcasting, broadcast strides, and
// the dims a reduction removes.
// Broadcasting aligns shapes at their last dim; sizes s_a, s_b broadcast iff s_a == s_b or one
// of them is 1, and the result is max(s_a, s_b) (a missing dim counts as size 1).
// A reduction's dims are a DimMask: bit d set <=> dim d is reduced (so tensors have <= 64 dims).
#pragma once

#include <bitset>
#include <string_view>

#include "core/array_ref.h"
#include "core/dim_vector.h"

namespace tg {

// The shape `a` and `b` broadcast to. Throws tg::ValueError, as PyTorch words it:
// "[op] the size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1".
DimVector infer_broadcast_size(IntArrayRef a, IntArrayRef b, std::string_view op = "broadcast");

// The strides that make a tensor of (sizes, strides) read as a tensor of shape `target`:
// target's leading dims that the tensor lacks and dims where it has size 1 get stride 0.
// Throws tg::ValueError when the shape does not broadcast to `target`.
DimVector expand_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef target, std::string_view op = "expand");

constexpr int64_t kMaxReductionDims = 64;
using DimMask = std::bitset<kMaxReductionDims>;

// The dims a reduction over `dims` removes from a tensor of `ndim` dims. None or an empty
// list means every dim. Negative dims count from the end; an out-of-range dim is a
// tg::IndexError and a repeated one a tg::ValueError. A zero-dim tensor accepts 0 and -1.
DimMask make_dim_mask(OptionalIntArrayRef dims, int64_t ndim, const char* op);

// The shape left by reducing the dims in `mask`: removed, or kept with size 1 if keepdim.
DimVector reduced_shape(IntArrayRef sizes, const DimMask& mask, bool keepdim);

// The number of elements reduced into each output element: prod(sizes[d] for d in mask).
int64_t reduced_numel(IntArrayRef sizes, const DimMask& mask);

}  // namespace tg
