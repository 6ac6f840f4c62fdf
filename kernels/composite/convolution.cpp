// Convolution, 1-d to 3-d, plain or transposed (CompositeExplicitAutograd: the derivatives are
// convolution_backward's, in schemas/convolution.yaml), and LibTorch's entry points over it.
// 2-d runs as im2col + matrix products, one per group (the CPU forward at stride 1: one
// product per kernel offset, Note [Kernel-shift convolution] in cpu/conv_kernel_shifts.cpp).
// With cols = im2col(x) of shape [N, C * kH * kW, L] and W_g the group's weight as a [O/G, C/G * kH * kW] matrix:
//   forward:        out_g = W_g cols_g                       (+ bias)
//   grad_input:     col2im(W_g^T grad_g), summed by col2im over overlapping windows
//   grad_weight:    sum over the batch of grad_g cols_g^T
//   grad_bias:      grad summed over the batch and the positions
// 1-d runs as 2-d with a height of 1; 3-d through composite/convolution_nd.cpp.
//
// Note [Transposed convolution]: conv_transpose(x, w) is the adjoint of conv(., w) applied to
// x, i.e. a plain convolution's input gradient with x as its grad_output (w [in, out / G, k...]
// is read as a plain weight [O, C / G, k...] with O = in). So its gradients are: for x, the
// plain convolution of grad with w; for w, the plain weight gradient with grad as the plain
// input and x as the plain grad_output. output_padding adds rows at the end that no window of
// the plain convolution reaches (it must be below stride or dilation to stay unambiguous).
#include <array>
#include <string>
#include <vector>

#include "NativeFunctions.h"
#include "composite/convolution_paths.h"
#include "cpu/conv_kernel_shifts.h"
#include "tensorgen/ops.h"

namespace tg::native {

namespace conv {

int64_t Geometry::output_size(int64_t d, int64_t in) const {
  const auto i = static_cast<size_t>(d);
  return (in + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) / stride[i] + 1;
}

namespace {

// Group g's weight as a [O/G, C/G * kH * kW] matrix.
Tensor group_weight(const Tensor& weight, const Geometry& g, int64_t group) {
  const int64_t og = weight.size(0) / g.groups;
  return weight.narrow(0, group * og, og).reshape({og, -1});
}

Tensor columns_of(const Tensor& image, const Geometry& g) {  // [1, C, H, W] -> [1, C * kH * kW, L]
  return tg::im2col(image, g.kernel, g.dilation, g.padding, g.stride);
}

}  // namespace

Tensor forward_2d(const Tensor& input, const Tensor& weight, const Geometry& g) {
  const int64_t batch = input.size(0), out_channels = weight.size(0), og = out_channels / g.groups;
  const int64_t out_height = g.output_size(0, input.size(2)), out_width = g.output_size(1, input.size(3));
  const int64_t rows = weight.numel() / out_channels;  // C/G * kH * kW
  // One image at a time: its columns ([C * kH * kW, L], a few MB) are still in cache for the
  // products, and each group's product goes straight into its rows of the output. Batching
  // the images into one product needed two transposing copies of the columns and the output.
  Tensor out = tg::empty({batch, out_channels, out_height * out_width}, input.options());
  // Stride 1 on the CPU: no columns at all (Note [Kernel-shift convolution]).
  if (g.stride[0] == 1 && g.stride[1] == 1 &&
      cpu::conv2d_by_kernel_shifts(input, weight, g.padding, g.dilation, g.groups,
                                   out.view({batch, out_channels, out_height, out_width}))) {
    return out.view({batch, out_channels, out_height, out_width});
  }
  for (int64_t n = 0; n < batch; ++n) {
    const Tensor columns = columns_of(input.narrow(0, n, 1), g).squeeze(0);  // [G * rows, L]
    for (int64_t group = 0; group < g.groups; ++group) {
      // [O/G, rows] x [rows, L] -> [O/G, L]
      Tensor rows_of_out = out.select(0, n).narrow(0, group * og, og);
      tg::mm_out(rows_of_out, group_weight(weight, g, group), columns.narrow(0, group * rows, rows));
    }
  }
  return out.view({batch, out_channels, out_height, out_width});
}

Tensor backward_input_2d(const Tensor& grad_output, const Tensor& weight, IntArrayRef input_sizes, const Geometry& g) {
  const int64_t batch = input_sizes[0], og = weight.size(0) / g.groups;
  int64_t rows = 1;  // weight's elements per output channel (not numel / size(0): that may be 0 / 0)
  for (int64_t d = 1; d < weight.dim(); ++d) rows *= weight.size(d);
  const Tensor grad = grad_output.reshape({batch, weight.size(0), grad_output.size(2) * grad_output.size(3)});
  Tensor grad_input = tg::empty(input_sizes, grad_output.options());
  Tensor columns_grad = tg::empty({g.groups * rows, grad.size(2)}, grad.options());  // reused across images
  for (int64_t n = 0; n < batch; ++n) {
    const Tensor grad_n = grad.select(0, n);  // [O, L]
    for (int64_t group = 0; group < g.groups; ++group) {
      // [rows, O/G] x [O/G, L] -> [rows, L]
      Tensor group_columns = columns_grad.narrow(0, group * rows, rows);
      tg::mm_out(group_columns, group_weight(weight, g, group).t(), grad_n.narrow(0, group * og, og));
    }
    // col2im sums each input element's contributions over the overlapping windows.
    grad_input.select(0, n).copy_(tg::col2im(columns_grad.unsqueeze(0), {input_sizes[2], input_sizes[3]}, g.kernel,
                                              g.dilation, g.padding, g.stride)
                                      .squeeze(0));
  }
  return grad_input;
}

Tensor backward_weight_2d(const Tensor& grad_output, const Tensor& input, IntArrayRef weight_sizes, const Geometry& g) {
  const int64_t batch = input.size(0), out_channels = weight_sizes[0], og = out_channels / g.groups;
  int64_t rows = 1;
  for (size_t d = 1; d < weight_sizes.size(); ++d) rows *= weight_sizes[d];
  const Tensor grad = grad_output.reshape({batch, out_channels, grad_output.size(2) * grad_output.size(3)});
  Tensor grad_weight = tg::zeros({out_channels, rows}, input.options());
  for (int64_t n = 0; n < batch; ++n) {
    const Tensor grad_n = grad.select(0, n);
    const Tensor columns = columns_of(input.narrow(0, n, 1), g).squeeze(0);  // [G * rows, L]
    for (int64_t group = 0; group < g.groups; ++group) {
      // [O/G, L] x [L, rows] -> [O/G, rows], summed over the batch
      grad_weight.narrow(0, group * og, og)
          .addmm_(grad_n.narrow(0, group * og, og), columns.narrow(0, group * rows, rows).t());
    }
  }
  return grad_weight.view(weight_sizes);
}

}  // namespace conv

namespace {

// The checked arguments of a convolution: spatial dims, batch, and the geometry with every
// list expanded to one entry per spatial dim.
struct ConvArgs {
  std::string op;  // conv2d, conv_transpose1d, ... for the messages
  int64_t spatial = 2;
  bool batched = true;
  bool transposed = false;
  conv::Geometry geometry;
  std::vector<int64_t> output_padding;
  int64_t out_channels = 0;
  std::vector<int64_t> output_sizes;  // batched
};

std::vector<int64_t> per_dim(const ConvArgs& a, const char* name, IntArrayRef value) {
  const auto k = static_cast<size_t>(a.spatial);
  TG_CHECK_VALUE(value.size() == 1 || value.size() == k, "[", a.op, "] expected ", name, " to have 1 or ", k,
                 " elements, got ", value);
  return value.size() == 1 ? std::vector<int64_t>(k, value[0]) : value.vec();
}

ConvArgs check_convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                           IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                           IntArrayRef output_padding, int64_t groups) {
  ConvArgs a;
  a.transposed = transposed;
  TG_CHECK_VALUE(weight.dim() >= 3 && weight.dim() <= 5, "[convolution] expected a 3-D, 4-D or 5-D weight ",
                 "([out_channels, in_channels / groups, *kernel], 1 to 3 spatial dims), got weight of size ",
                 weight.sizes());
  a.spatial = weight.dim() - 2;
  a.op = std::string(transposed ? "conv_transpose" : "conv") + std::to_string(a.spatial) + "d";
  const char* op = a.op.c_str();
  TG_CHECK_VALUE(input.dim() == a.spatial + 1 || input.dim() == a.spatial + 2, "[", op, "] expected ",
                 a.spatial + 1, "D (unbatched) or ", a.spatial + 2, "D (batched) input to ", op,
                 ", but got input of size: ", input.sizes());
  TG_CHECK_TYPE(input.scalar_type() == weight.scalar_type(), "[", op, "] input type (", input.scalar_type(),
                ") and weight type (", weight.scalar_type(), ") should be the same");
  TG_CHECK_VALUE(groups > 0, "[", op, "] non-positive groups is not supported, got groups=", groups);
  a.batched = input.dim() == a.spatial + 2;
  conv::Geometry& g = a.geometry;
  g.groups = groups;
  for (int64_t d = 0; d < a.spatial; ++d) g.kernel.push_back(weight.size(d + 2));
  g.stride = per_dim(a, "stride", stride);
  g.padding = per_dim(a, "padding", padding);
  g.dilation = per_dim(a, "dilation", dilation);
  a.output_padding = transposed ? per_dim(a, "output_padding", output_padding) : std::vector<int64_t>(g.kernel.size(), 0);
  for (size_t d = 0; d < g.kernel.size(); ++d) {
    TG_CHECK_VALUE(g.stride[d] > 0, "[", op, "] non-positive stride is not supported, got ", stride);
    TG_CHECK_VALUE(g.padding[d] >= 0, "[", op, "] negative padding is not supported, got ", padding);
    TG_CHECK_VALUE(g.dilation[d] > 0, "[", op, "] dilation should be greater than zero, got ", dilation);
    TG_CHECK_VALUE(a.output_padding[d] >= 0 &&
                       (a.output_padding[d] < g.stride[d] || a.output_padding[d] < g.dilation[d]),
                   "[", op, "] output padding must be non-negative and smaller than either stride or dilation, got ",
                   "output_padding=", output_padding, ", stride=", stride, ", dilation=", dilation);
  }
  for (size_t d = 0; d < g.kernel.size() && transposed; ++d) {
    // See Note [Transposed convolution]: then every output row is reached by some window.
    TG_CHECK_NOT_IMPLEMENTED(a.output_padding[d] < g.stride[d], "[", op, "] output_padding >= stride (which ",
                             "LibTorch allows when below dilation) is not implemented, got output_padding=",
                             output_padding, ", stride=", stride);
  }
  const int64_t channels = input.size(a.batched ? 1 : 0);
  std::vector<int64_t> out{a.batched ? input.size(0) : 1};
  if (!transposed) {
    a.out_channels = weight.size(0);
    TG_CHECK_VALUE(a.out_channels % groups == 0, "[", op, "] given groups=", groups, ", expected weight to be ",
                   "divisible by ", groups, " at dimension 0, but got weight of size ", weight.sizes(), " instead");
    TG_CHECK_VALUE(channels == weight.size(1) * groups, "[", op, "] given groups=", groups, ", weight of size ",
                   weight.sizes(), ", expected input", input.sizes(), " to have ", weight.size(1) * groups,
                   " channels, but got ", channels, " channels instead");
    out.push_back(a.out_channels);
    for (int64_t d = 0; d < a.spatial; ++d) {
      const auto i = static_cast<size_t>(d);
      const int64_t padded = input.size(input.dim() - a.spatial + d) + 2 * g.padding[i];
      const int64_t extent = g.dilation[i] * (g.kernel[i] - 1) + 1;
      TG_CHECK_VALUE(extent <= padded, "[", op, "] calculated padded input size per channel: ", padded,
                     " along spatial dim ", d, ". Kernel size: ", extent,
                     ". Kernel size can't be greater than actual input size");
      out.push_back(g.output_size(d, input.size(input.dim() - a.spatial + d)));
    }
  } else {
    TG_CHECK_VALUE(weight.size(0) % groups == 0, "[", op, "] given groups=", groups, ", expected weight to be ",
                   "divisible by ", groups, " at dimension 0, but got weight of size ", weight.sizes(), " instead");
    TG_CHECK_VALUE(channels == weight.size(0), "[", op, "] given transposed=1, weight of size ", weight.sizes(),
                   ", expected input", input.sizes(), " to have ", weight.size(0), " channels, but got ", channels,
                   " channels instead");
    a.out_channels = weight.size(1) * groups;
    out.push_back(a.out_channels);
    for (int64_t d = 0; d < a.spatial; ++d) {
      const auto i = static_cast<size_t>(d);
      const int64_t size = (input.size(input.dim() - a.spatial + d) - 1) * g.stride[i] - 2 * g.padding[i] +
                           g.dilation[i] * (g.kernel[i] - 1) + a.output_padding[i] + 1;
      TG_CHECK_VALUE(size > 0, "[", op, "] the output size along spatial dim ", d, " would be ", size,
                     " (input ", input.sizes(), ", weight ", weight.sizes(), ", stride ", stride, ", padding ",
                     padding, "): too small");
      out.push_back(size);
    }
  }
  a.output_sizes = out;
  if (bias && bias->defined()) {
    TG_CHECK_VALUE(bias->dim() == 1 && bias->size(0) == a.out_channels, "[", op, "] given weight of size ",
                   weight.sizes(), ", expected bias to be 1-dimensional with ", a.out_channels,
                   " elements, but got bias of size ", bias->sizes(), " instead");
  }
  return a;
}

// The 1-d geometry as 2-d with a height of 1.
conv::Geometry lifted(const conv::Geometry& g) {
  return {{1, g.kernel[0]}, {1, g.stride[0]}, {0, g.padding[0]}, {1, g.dilation[0]}, g.groups};
}

std::vector<int64_t> lifted_sizes(IntArrayRef sizes) {  // [N, C, L] -> [N, C, 1, L]
  return {sizes[0], sizes[1], 1, sizes[2]};
}

// The plain paths per spatial dims, on batched tensors.
Tensor plain_forward(const Tensor& input, const Tensor& weight, const conv::Geometry& g) {
  switch (g.spatial_dims()) {
    case 1: return conv::forward_2d(input.unsqueeze(2), weight.unsqueeze(2), lifted(g)).squeeze(2);
    case 2: return conv::forward_2d(input, weight, g);
    default: return conv::forward_nd(input, weight, g);
  }
}

Tensor plain_backward_input(const Tensor& grad_output, const Tensor& weight, IntArrayRef input_sizes,
                            const conv::Geometry& g) {
  switch (g.spatial_dims()) {
    case 1:
      return conv::backward_input_2d(grad_output.unsqueeze(2), weight.unsqueeze(2), lifted_sizes(input_sizes),
                                     lifted(g))
          .squeeze(2);
    case 2: return conv::backward_input_2d(grad_output, weight, input_sizes, g);
    default: return conv::backward_input_nd(grad_output, weight, input_sizes, g);
  }
}

Tensor plain_backward_weight(const Tensor& grad_output, const Tensor& input, IntArrayRef weight_sizes,
                             const conv::Geometry& g) {
  switch (g.spatial_dims()) {
    case 1: {
      const std::vector<int64_t> sizes{weight_sizes[0], weight_sizes[1], 1, weight_sizes[2]};
      return conv::backward_weight_2d(grad_output.unsqueeze(2), input.unsqueeze(2), sizes, lifted(g)).squeeze(2);
    }
    case 2: return conv::backward_weight_2d(grad_output, input, weight_sizes, g);
    default: return conv::backward_weight_nd(grad_output, input, weight_sizes, g);
  }
}

}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups) {
  const ConvArgs a = check_convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                                       groups);
  const Tensor batched_input = a.batched ? input : input.unsqueeze(0);
  // See Note [Transposed convolution].
  Tensor out = transposed ? plain_backward_input(batched_input, weight, a.output_sizes, a.geometry)
                          : plain_forward(batched_input, weight, a.geometry);
  if (bias && bias->defined()) {
    std::vector<int64_t> shape(static_cast<size_t>(out.dim()), 1);
    shape[1] = a.out_channels;
    out.add_(bias->view(shape));
  }
  return a.batched ? out : out.squeeze(0);
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, OptionalIntArrayRef /*bias_sizes*/,
                                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                        bool transposed, IntArrayRef output_padding, int64_t groups,
                                                        std::array<bool, 3> output_mask) {
  const ConvArgs a = check_convolution(input, weight, std::nullopt, stride, padding, dilation, transposed,
                                       output_padding, groups);
  std::vector<int64_t> expected = a.output_sizes;
  if (!a.batched) expected.erase(expected.begin());
  TG_CHECK_VALUE(grad_output.sizes() == IntArrayRef(expected), "[convolution_backward] expected grad_output of ",
                 "shape ", IntArrayRef(expected), ", got ", grad_output.sizes());
  const Tensor grad = a.batched ? grad_output : grad_output.unsqueeze(0);
  const Tensor batched_input = a.batched ? input : input.unsqueeze(0);
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    grad_input = transposed ? plain_forward(grad, weight, a.geometry)
                            : plain_backward_input(grad, weight, batched_input.sizes(), a.geometry);
    if (!a.batched) grad_input = grad_input.squeeze(0);
  }
  if (output_mask[1]) {
    grad_weight = transposed ? plain_backward_weight(batched_input, grad, weight.sizes(), a.geometry)
                             : plain_backward_weight(grad, batched_input, weight.sizes(), a.geometry);
  }
  if (output_mask[2]) {
    std::vector<int64_t> dims{0};
    for (int64_t d = 2; d < grad.dim(); ++d) dims.push_back(d);
    grad_bias = grad.sum(dims);
  }
  return {grad_input, grad_weight, grad_bias};
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return tg::convolution(input, weight, bias, stride, padding, dilation, /*transposed=*/false, {0}, groups);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return tg::convolution(input, weight, bias, stride, padding, dilation, /*transposed=*/false, {0, 0}, groups);
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return tg::convolution(input, weight, bias, stride, padding, dilation, /*transposed=*/false, {0, 0, 0}, groups);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return tg::convolution(input, weight, bias, stride, padding, dilation, /*transposed=*/true, output_padding, groups);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return tg::convolution(input, weight, bias, stride, padding, dilation, /*transposed=*/true, output_padding, groups);
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return tg::convolution(input, weight, bias, stride, padding, dilation, /*transposed=*/true, output_padding, groups);
}

}  // namespace tg::native
