// The plain convolution over any number of spatial dims (3-d convolution uses it), with its
// input and weight gradients. See Note [Convolution index map].
//
// Note [Convolution index map]: with the input zero-padded and flattened per channel to
// P = prod(in + 2 * padding) positions, column entry (k, l) of a channel (kernel offset k,
// output position l) reads one flat position, the same for every channel and image. That map
// is an arange over the padded positions viewed through as_strided (strides dilation * s_d for
// the kernel dims, stride * s_d for the output dims, s_d the padded row-major strides), so the
// columns are one index_select and their adjoint (the input gradient) one index_add: im2col
// and col2im for any rank, from operators every backend has.
#include <vector>

#include "NativeFunctions.h"
#include "composite/convolution_paths.h"
#include "tensorgen/ops.h"

namespace tg::native::conv {

namespace {

struct NdLayout {
  std::vector<int64_t> padded, out;
  int64_t positions = 1;  // prod(padded)
  int64_t kernel_elements = 1, out_elements = 1;
};

NdLayout layout_of(IntArrayRef spatial_in, const Geometry& g) {
  NdLayout layout;
  for (int64_t d = 0; d < g.spatial_dims(); ++d) {
    const auto i = static_cast<size_t>(d);
    layout.padded.push_back(spatial_in[i] + 2 * g.padding[i]);
    layout.out.push_back(g.output_size(d, spatial_in[i]));
    layout.positions *= layout.padded.back();
    layout.kernel_elements *= g.kernel[i];
    layout.out_elements *= layout.out.back();
  }
  return layout;
}

// [K * L] flat positions into a padded channel, kernel offset major. See Note [Convolution index map].
Tensor index_map(const NdLayout& layout, const Geometry& g, Device device) {
  const size_t dims = layout.padded.size();
  std::vector<int64_t> padded_strides(dims, 1);
  for (size_t d = dims - 1; d > 0; --d) padded_strides[d - 1] = padded_strides[d] * layout.padded[d];
  std::vector<int64_t> sizes, strides;
  for (size_t d = 0; d < dims; ++d) {
    sizes.push_back(g.kernel[d]);
    strides.push_back(g.dilation[d] * padded_strides[d]);
  }
  for (size_t d = 0; d < dims; ++d) {
    sizes.push_back(layout.out[d]);
    strides.push_back(g.stride[d] * padded_strides[d]);
  }
  return tg::arange(layout.positions, TensorOptions().dtype(kLong))
      .as_strided(sizes, strides)
      .reshape({layout.kernel_elements * layout.out_elements})
      .to(device);
}

// [N, C, *spatial] -> [N, C, P], zero-padded.
Tensor padded_flat(const Tensor& input, const Geometry& g, const NdLayout& layout) {
  std::vector<int64_t> amounts;  // last dim first, as pad takes them
  for (int64_t d = g.spatial_dims() - 1; d >= 0; --d) {
    amounts.push_back(g.padding[static_cast<size_t>(d)]);
    amounts.push_back(g.padding[static_cast<size_t>(d)]);
  }
  return tg::pad(input, amounts).reshape({input.size(0), input.size(1), layout.positions});
}

// [N, C * K, L]: channel-major then kernel offset, as a weight [O, C / G, *k] flattens.
Tensor columns_of(const Tensor& input, const Geometry& g, const NdLayout& layout) {
  const Tensor columns = padded_flat(input, g, layout).index_select(2, index_map(layout, g, input.device()));
  return columns.view({input.size(0), input.size(1) * layout.kernel_elements, layout.out_elements});
}

}  // namespace

Tensor forward_nd(const Tensor& input, const Tensor& weight, const Geometry& g) {
  const NdLayout layout = layout_of(input.sizes().slice(2), g);
  const Tensor columns = columns_of(input, g, layout);
  const int64_t og = weight.size(0) / g.groups, rows = weight.numel() / weight.size(0);
  std::vector<Tensor> outputs;
  for (int64_t group = 0; group < g.groups; ++group) {
    // [O/G, rows] x [N, rows, L] -> [N, O/G, L]
    outputs.push_back(tg::matmul(weight.narrow(0, group * og, og).reshape({og, rows}),
                                 columns.narrow(1, group * rows, rows)));
  }
  std::vector<int64_t> sizes{input.size(0), weight.size(0)};
  sizes.insert(sizes.end(), layout.out.begin(), layout.out.end());
  return tg::cat(outputs, 1).view(sizes);
}

Tensor backward_input_nd(const Tensor& grad_output, const Tensor& weight, IntArrayRef input_sizes, const Geometry& g) {
  const NdLayout layout = layout_of(input_sizes.slice(2), g);
  const int64_t batch = input_sizes[0], channels = input_sizes[1];
  const int64_t og = weight.size(0) / g.groups, rows = weight.numel() / weight.size(0);
  const Tensor grad = grad_output.reshape({batch, weight.size(0), layout.out_elements});
  std::vector<Tensor> column_grads;
  for (int64_t group = 0; group < g.groups; ++group) {
    // [rows, O/G] x [N, O/G, L] -> [N, rows, L]
    column_grads.push_back(tg::matmul(weight.narrow(0, group * og, og).reshape({og, rows}).t(),
                                      grad.narrow(1, group * og, og)));
  }
  const Tensor columns = tg::cat(column_grads, 1).reshape({batch, channels, layout.kernel_elements * layout.out_elements});
  Tensor padded = tg::zeros({batch, channels, layout.positions}, grad_output.options());
  padded.index_add_(2, index_map(layout, g, grad_output.device()), columns);
  std::vector<int64_t> padded_sizes{batch, channels};
  padded_sizes.insert(padded_sizes.end(), layout.padded.begin(), layout.padded.end());
  Tensor result = padded.view(padded_sizes);
  for (int64_t d = 0; d < g.spatial_dims(); ++d) {
    result = result.narrow(d + 2, g.padding[static_cast<size_t>(d)], input_sizes[static_cast<size_t>(d) + 2]);
  }
  return result.contiguous();
}

Tensor backward_weight_nd(const Tensor& grad_output, const Tensor& input, IntArrayRef weight_sizes, const Geometry& g) {
  const NdLayout layout = layout_of(input.sizes().slice(2), g);
  const Tensor columns = columns_of(input, g, layout);
  const int64_t out_channels = weight_sizes[0], og = out_channels / g.groups;
  const int64_t rows = columns.size(1) / g.groups;
  const Tensor grad = grad_output.reshape({input.size(0), out_channels, layout.out_elements});
  std::vector<Tensor> weight_grads;
  for (int64_t group = 0; group < g.groups; ++group) {
    // [N, O/G, L] x [N, L, rows] -> [N, O/G, rows], summed over the batch
    weight_grads.push_back(
        tg::matmul(grad.narrow(1, group * og, og), columns.narrow(1, group * rows, rows).transpose(1, 2)).sum(std::vector<int64_t>{0}));
  }
  return tg::cat(weight_grads, 0).reshape(weight_sizes);
}

}  // namespace tg::native::conv
