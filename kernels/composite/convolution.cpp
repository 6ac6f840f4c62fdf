// 2-d convolution as im2col + matrix products, one per group (CompositeExplicitAutograd: the
// derivatives are convolution_backward's, in schemas/convolution.yaml). With cols = im2col(x)
// of shape [N, C * kH * kW, L] and W_g the group's weight as a [O/G, C/G * kH * kW] matrix:
//   forward:        out_g = W_g cols_g                       (+ bias)
//   grad_input:     col2im(W_g^T grad_g), summed by col2im over overlapping windows
//   grad_weight:    sum over the batch of grad_g cols_g^T
//   grad_bias:      grad summed over the batch and the positions
#include <array>
#include <vector>

#include "NativeFunctions.h"
#include "tensorgen/ops.h"

namespace tg::native {

namespace {

// The checked shapes of a 2-d convolution; an unbatched [C, H, W] input counts as N = 1.
struct Conv2dShape {
  bool batched = true;
  int64_t batch = 1, channels = 0, height = 0, width = 0, out_channels = 0, groups = 1;
  std::array<int64_t, 2> kernel{}, stride{}, padding{}, dilation{};
  int64_t out_height = 0, out_width = 0;

  int64_t group_channels() const { return channels / groups; }
  int64_t group_out_channels() const { return out_channels / groups; }
  int64_t column_rows() const { return group_channels() * kernel[0] * kernel[1]; }  // per group
};

std::array<int64_t, 2> pair_of(const char* name, IntArrayRef value) {
  TG_CHECK_VALUE(value.size() == 1 || value.size() == 2, "[conv2d] expected ", name, " to have 1 or 2 elements, got ",
                 value);
  return {value[0], value.size() == 2 ? value[1] : value[0]};
}

Conv2dShape conv2d_shape(const Tensor& input, const Tensor& weight, IntArrayRef stride, IntArrayRef padding,
                         IntArrayRef dilation, bool transposed, int64_t groups) {
  TG_CHECK_NOT_IMPLEMENTED(!transposed, "[convolution] transposed convolution is not implemented");
  TG_CHECK_VALUE(weight.dim() == 4, "[conv2d] expected a 4-D weight ([out_channels, in_channels / groups, kH, kW]), "
                 "got weight of size ", weight.sizes(), "; only 2-d convolution is implemented");
  TG_CHECK_VALUE(input.dim() == 3 || input.dim() == 4, "[conv2d] expected 3D (unbatched) or 4D (batched) input to ",
                 "conv2d, but got input of size: ", input.sizes());
  TG_CHECK_TYPE(input.scalar_type() == weight.scalar_type(), "[conv2d] input type (", input.scalar_type(),
                ") and weight type (", weight.scalar_type(), ") should be the same");
  TG_CHECK_VALUE(groups > 0, "[conv2d] non-positive groups is not supported, got groups=", groups);
  Conv2dShape s;
  s.batched = input.dim() == 4;
  s.batch = s.batched ? input.size(0) : 1;
  s.channels = input.size(-3);
  s.height = input.size(-2);
  s.width = input.size(-1);
  s.out_channels = weight.size(0);
  s.groups = groups;
  s.kernel = {weight.size(2), weight.size(3)};
  s.stride = pair_of("stride", stride);
  s.padding = pair_of("padding", padding);
  s.dilation = pair_of("dilation", dilation);
  for (int i = 0; i < 2; ++i) {
    TG_CHECK_VALUE(s.stride[i] > 0, "[conv2d] non-positive stride is not supported, got ", stride);
    TG_CHECK_VALUE(s.padding[i] >= 0, "[conv2d] negative padding is not supported, got ", padding);
    TG_CHECK_VALUE(s.dilation[i] > 0, "[conv2d] dilation should be greater than zero, got ", dilation);
  }
  TG_CHECK_VALUE(s.out_channels % groups == 0, "[conv2d] given groups=", groups, ", expected weight to be divisible ",
                 "by ", groups, " at dimension 0, but got weight of size ", weight.sizes(), " instead");
  TG_CHECK_VALUE(s.channels == weight.size(1) * groups, "[conv2d] given groups=", groups, ", weight of size ",
                 weight.sizes(), ", expected input", input.sizes(), " to have ", weight.size(1) * groups,
                 " channels, but got ", s.channels, " channels instead");
  const int64_t padded_h = s.height + 2 * s.padding[0], padded_w = s.width + 2 * s.padding[1];
  const int64_t extent_h = s.dilation[0] * (s.kernel[0] - 1) + 1, extent_w = s.dilation[1] * (s.kernel[1] - 1) + 1;
  TG_CHECK_VALUE(extent_h <= padded_h && extent_w <= padded_w, "[conv2d] calculated padded input size per channel: (",
                 padded_h, " x ", padded_w, "). Kernel size: (", extent_h, " x ", extent_w,
                 "). Kernel size can't be greater than actual input size");
  s.out_height = (padded_h - extent_h) / s.stride[0] + 1;
  s.out_width = (padded_w - extent_w) / s.stride[1] + 1;
  return s;
}

std::vector<int64_t> as_vector(const std::array<int64_t, 2>& a) { return {a[0], a[1]}; }

// im2col of a batched input: [N, C * kH * kW, L].
Tensor columns_of(const Tensor& batched_input, const Conv2dShape& s) {
  return tg::im2col(batched_input, as_vector(s.kernel), as_vector(s.dilation), as_vector(s.padding),
                    as_vector(s.stride));
}

// Group g's weight as a [O/G, C/G * kH * kW] matrix.
Tensor group_weight(const Tensor& weight, const Conv2dShape& s, int64_t g) {
  const int64_t og = s.group_out_channels();
  return weight.narrow(0, g * og, og).reshape({og, s.column_rows()});
}

}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef /*output_padding*/,
                   int64_t groups) {
  const Conv2dShape s = conv2d_shape(input, weight, stride, padding, dilation, transposed, groups);
  const bool has_bias = bias && bias->defined();
  if (has_bias) {
    TG_CHECK_VALUE(bias->dim() == 1 && bias->size(0) == s.out_channels, "[conv2d] given weight of size ",
                   weight.sizes(), ", expected bias to be 1-dimensional with ", s.out_channels, " elements, but got ",
                   "bias of size ", bias->sizes(), " instead");
  }
  const Tensor batched_input = s.batched ? input : input.unsqueeze(0);
  const int64_t rows = s.column_rows(), og = s.group_out_channels();
  // One image at a time: its columns ([C * kH * kW, L], a few MB) are still in cache for the
  // products, and each group's product goes straight into its rows of the output. Batching
  // the images into one product needed two transposing copies of the columns and the output.
  Tensor out = tg::empty({s.batch, s.out_channels, s.out_height * s.out_width}, input.options());
  for (int64_t n = 0; n < s.batch; ++n) {
    const Tensor columns = columns_of(batched_input.narrow(0, n, 1), s).squeeze(0);  // [G * rows, L]
    for (int64_t g = 0; g < s.groups; ++g) {
      // [O/G, rows] x [rows, L] -> [O/G, L]
      Tensor rows_of_out = out.select(0, n).narrow(0, g * og, og);
      tg::mm_out(rows_of_out, group_weight(weight, s, g), columns.narrow(0, g * rows, rows));
    }
  }
  out = out.view({s.batch, s.out_channels, s.out_height, s.out_width});
  if (has_bias) out.add_(bias->view({1, s.out_channels, 1, 1}));
  return s.batched ? out : out.squeeze(0);
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, OptionalIntArrayRef /*bias_sizes*/,
                                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                        bool transposed, IntArrayRef /*output_padding*/,
                                                        int64_t groups, std::array<bool, 3> output_mask) {
  const Conv2dShape s = conv2d_shape(input, weight, stride, padding, dilation, transposed, groups);
  const std::vector<int64_t> expected = s.batched
      ? std::vector<int64_t>{s.batch, s.out_channels, s.out_height, s.out_width}
      : std::vector<int64_t>{s.out_channels, s.out_height, s.out_width};
  TG_CHECK_VALUE(grad_output.sizes() == IntArrayRef(expected), "[convolution_backward] expected grad_output of ",
                 "shape ", IntArrayRef(expected), ", got ", grad_output.sizes());
  const int64_t og = s.group_out_channels(), rows = s.column_rows();
  const Tensor grad = grad_output.reshape({s.batch, s.out_channels, s.out_height * s.out_width});  // [N, O, L]
  const Tensor batched_input = s.batched ? input : input.unsqueeze(0);
  Tensor grad_input, grad_weight, grad_bias;
  // Image by image, as the forward: [C * kH * kW, L] columns at a time.
  if (output_mask[0]) grad_input = tg::empty({s.batch, s.channels, s.height, s.width}, input.options());
  if (output_mask[1]) grad_weight = tg::zeros({s.out_channels, rows}, weight.options());
  Tensor columns_grad;  // [G * rows, L], reused across images
  for (int64_t n = 0; n < s.batch && (output_mask[0] || output_mask[1]); ++n) {
    const Tensor grad_n = grad.select(0, n);  // [O, L]
    if (output_mask[0]) {
      if (!columns_grad.defined()) columns_grad = tg::empty({s.groups * rows, grad.size(2)}, grad.options());
      for (int64_t g = 0; g < s.groups; ++g) {
        // [rows, O/G] x [O/G, L] -> [rows, L]
        Tensor group_columns = columns_grad.narrow(0, g * rows, rows);
        tg::mm_out(group_columns, group_weight(weight, s, g).t(), grad_n.narrow(0, g * og, og));
      }
      // col2im sums each input element's contributions over the overlapping windows.
      grad_input.select(0, n).copy_(tg::col2im(columns_grad.unsqueeze(0), {s.height, s.width}, as_vector(s.kernel),
                                                as_vector(s.dilation), as_vector(s.padding), as_vector(s.stride))
                                        .squeeze(0));
    }
    if (output_mask[1]) {
      const Tensor columns = columns_of(batched_input.narrow(0, n, 1), s).squeeze(0);  // [G * rows, L]
      for (int64_t g = 0; g < s.groups; ++g) {
        // [O/G, L] x [L, rows] -> [O/G, rows], summed over the batch
        grad_weight.narrow(0, g * og, og).addmm_(grad_n.narrow(0, g * og, og), columns.narrow(0, g * rows, rows).t());
      }
    }
  }
  if (output_mask[0] && !s.batched) grad_input = grad_input.squeeze(0);
  if (output_mask[1]) grad_weight = grad_weight.view(weight.sizes());
  if (output_mask[2]) grad_bias = grad.sum(std::vector<int64_t>{0, 2});
  return {grad_input, grad_weight, grad_bias};
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return tg::convolution(input, weight, bias, stride, padding, dilation, /*transposed=*/false, {0, 0}, groups);
}

}  // namespace tg::native
