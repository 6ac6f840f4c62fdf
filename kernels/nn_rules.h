// The argument rules of the neural-network kernels, shared by the CPU and the CUDA kernels so
// that both raise the same errors: softmax, layer norm, dropout, embedding's backward, the
// NLL loss, cat, im2col and col2im. Checks that read index values (class targets, embedding indices) run on
// a CPU copy of the indices, which the functions return (contiguous int64).
#pragma once

#include <cstdint>
#include <array>
#include <optional>
#include <tuple>
#include <vector>

#include "core/dim_vector.h"
#include "core/host_buffer.h"
#include "core/tensor.h"
#include "im2col_shape.h"

namespace tg {

// _softmax and _log_softmax: half_to_float=true is not supported.
void check_no_half_to_float(const char* op, bool half_to_float);

// native_layer_norm: M rows of N elements, N the product of normalized_shape; mean and rstd
// have the shape `stats` (the batch dims, then a 1 per normalized dim).
struct LayerNormShape {
  int64_t rows = 0, row_size = 0;
  DimVector stats;
};
LayerNormShape check_layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                                const std::optional<Tensor>& bias);
// native_layer_norm_backward's outputs that output_mask asks for, allocated.
std::tuple<Tensor, Tensor, Tensor> layer_norm_backward_outputs(const Tensor& input, IntArrayRef normalized_shape,
                                                               std::array<bool, 3> output_mask);
// native_layer_norm_backward: the forward's checks, and grad_out, mean and rstd against them.
LayerNormShape check_layer_norm_backward(const Tensor& grad_out, const Tensor& input, IntArrayRef normalized_shape,
                                         const Tensor& mean, const Tensor& rstd, const std::optional<Tensor>& weight,
                                         const std::optional<Tensor>& bias);

// native_dropout: p in [0, 1], a floating input. The scale of the kept elements (0 for p = 1).
double check_dropout(const Tensor& input, double p);
// native_dropout with train=false: a copy of input and an all-true mask (any device).
std::tuple<Tensor, Tensor> dropout_eval(const Tensor& input);
// native_dropout_backward: a bool mask; the shape grad_output and mask broadcast to.
DimVector check_dropout_backward(const Tensor& grad_output, const Tensor& mask);

// embedding_dense_backward: the indices (CPU, int64, contiguous), each in [0, num_weights),
// and how often each weight row is indexed.
struct EmbeddingIndices {
  Tensor indices;
  HostVector<int64_t> frequency;  // sized by num_weights: see core/host_buffer.h
};
EmbeddingIndices check_embedding_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights);
// The part of check_embedding_backward that reads no index value: the dtype of indices, the
// shapes and num_weights (the CUDA kernel checks the values on the device: Note [Index checks
// on the device] in docs/cuda.md).
void check_embedding_backward_shapes(const Tensor& grad_output, const Tensor& indices, int64_t num_weights);

// nll_loss_forward / nll_loss_backward: the targets (CPU, int64, contiguous), each a class
// index in [0, classes) or ignore_index. (The CUDA kernels check them on the device.)
Tensor check_nll_targets(const char* op, const Tensor& target, int64_t classes, int64_t ignore_index);

// cat: the result's dtype (promoted) and shape, and the dim (wrapped). A legacy empty tensor
// (shape [0]) is skipped; when every input is one, the result has tensors[0]'s shape.
struct CatShape {
  ScalarType dtype = ScalarType::Undefined;
  DimVector sizes;
  int64_t dim = 0;
};
bool is_legacy_empty(const Tensor& t);
CatShape check_cat(TensorList tensors, int64_t dim);

// im2col ([N,] C, H, W -> [N,] C kH kW, L) and col2im (back): the geometry, the batch (1
// unbatched), the channels of the image and the result's sizes.
struct Im2colCall {
  Im2colShape shape;
  int64_t batch = 1, channels = 0;
  DimVector out_sizes;
};
Im2colCall check_im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                        IntArrayRef stride);
Im2colCall check_col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
                        IntArrayRef padding, IntArrayRef stride);

}  // namespace tg
