// The plain (not transposed) convolution of batched inputs, its input gradient and its weight
// gradient, per number of spatial dims: what convolution and convolution_backward (composite/
// convolution.cpp) are made of. A transposed convolution is a plain one's input gradient, and
// its gradients are a plain convolution and a plain weight gradient (Note [Transposed
// convolution]). Shapes: input [N, C, *spatial], weight [O, C / groups, *kernel], output
// [N, O, *out] with out = (in + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace tg::native::conv {

// One entry per spatial dim.
struct Geometry {
  std::vector<int64_t> kernel, stride, padding, dilation;
  int64_t groups = 1;

  int64_t spatial_dims() const { return static_cast<int64_t>(kernel.size()); }
  // out = (in + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1, along dim d.
  int64_t output_size(int64_t d, int64_t in) const;
};

// 2-d: im2col and one matrix product per image and group (composite/convolution.cpp).
Tensor forward_2d(const Tensor& input, const Tensor& weight, const Geometry& g);
Tensor backward_input_2d(const Tensor& grad_output, const Tensor& weight, IntArrayRef input_sizes, const Geometry& g);
Tensor backward_weight_2d(const Tensor& grad_output, const Tensor& input, IntArrayRef weight_sizes, const Geometry& g);

// Any number of spatial dims (used for 3-d): columns gathered through an index map of the
// padded input, scattered back with index_add (composite/convolution_nd.cpp).
Tensor forward_nd(const Tensor& input, const Tensor& weight, const Geometry& g);
Tensor backward_input_nd(const Tensor& grad_output, const Tensor& weight, IntArrayRef input_sizes, const Geometry& g);
Tensor backward_weight_nd(const Tensor& grad_output, const Tensor& input, IntArrayRef weight_sizes, const Geometry& g);

}  // namespace tg::native::conv
