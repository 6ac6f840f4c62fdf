// Helpers the derivative formulas in schemas/*.yaml call (PyTorch's FunctionsManual).
// Each is written with public operators, so it serves every backend and records its own
// graph when create_graph asks for higher-order gradients.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "autograd/node.h"
#include "autograd/variable_type_utils.h"
#include "core/scalar.h"

namespace tg::autograd {

// --- node support (used by the generated apply()) ---
bool any_defined(const variable_list& grads);
// Replaces undefined gradients of a multi-output node by zeros of the output's shape.
void materialize_undefined_grads(const Node& node, variable_list& grads);
[[noreturn]] void derivative_not_implemented(std::string_view op, std::string_view reason);

// --- formulas ---
// The generator reads this section as the list of helpers a formula may call (See
// codegen/check_formulas.py); sum_to, defined with the autograd kernel utilities, is one.
Tensor sum_to(const Tensor& grad, IntArrayRef sizes);
Tensor maybe_multiply(const Tensor& t, const Scalar& s);
// mm's gradient for mat2, alpha * mat1^T grad, laid out like mat2: when mat2 is column-major
// (the transpose of a row-major matrix, as linear's weight.t() is) it is computed as
// (grad^T mat1)^T, so the weight's gradient comes out of t()'s backward contiguous and
// AccumulateGrad keeps it without a copy (as PyTorch's mm_mat2_backward).
Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, IntArrayRef mat2_sizes, IntArrayRef mat2_strides,
                        const Scalar& alpha);
Tensor to_copy_backward(const Tensor& grad, ScalarType self_dtype, Device self_device);
Tensor permute_backwards(const Tensor& grad, IntArrayRef dims);
Tensor abs_backward(const Tensor& grad, const Tensor& self);
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max);
Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent);
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result);
// Undoes a reduction over `dim` (all dims when empty or None): unsqueezes the reduced dims
// when keepdim was false, then expands to the input's shape.
Tensor sum_backward(const Tensor& grad, IntArrayRef input_sizes, OptionalIntArrayRef dim, bool keepdim);
Tensor mean_backward(const Tensor& grad, IntArrayRef input_sizes, OptionalIntArrayRef dim, int64_t numel,
                     bool keepdim);
// amax/amin: the gradient is shared evenly among the elements equal to the extremum.
Tensor amax_amin_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim);
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
// norm.ScalarOpt_dim (norm_formulas.cpp): zero where the norm is zero, as in PyTorch.
Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p, const Tensor& result,
                     IntArrayRef dim, bool keepdim);
// max.dim, topk: the gradient goes to the elements the indices selected (any number per
// slice along dim).
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                          IntArrayRef input_sizes, bool keepdim);

// --- neural-network formulas (nn_formulas.cpp) ---
// Second derivatives of the pointwise activations: grad * grad_output * f''(self).
Tensor gelu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                            std::string_view approximate);
Tensor silu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self);
// The gradient of _softmax_backward_data (_log_softmax_backward_data) with respect to output.
Tensor softmax_double_backward(const Tensor& grad, const Tensor& grad_output, int64_t dim, const Tensor& output);
// _log_softmax_backward_data is linear in grad_output: the adjoint is G - sum(G exp(output)).
Tensor log_softmax_backward_grad_output(const Tensor& grad, const Tensor& output, int64_t dim);
Tensor log_softmax_double_backward(const Tensor& grad, const Tensor& grad_output, int64_t dim, const Tensor& output);
// nll_loss_backward is linear in grad_output and, for Mean, in 1 / total_weight.
Tensor nll_loss_backward_grad_output(const Tensor& grad, const Tensor& target, const std::optional<Tensor>& weight,
                                     int64_t reduction, int64_t ignore_index, const Tensor& total_weight);
Tensor nll_loss_backward_total_weight(const Tensor& grad, const Tensor& grad_input, const Tensor& total_weight,
                                      int64_t reduction);
// mse_loss_backward = norm * (self - target) * grad_output, norm = 2 (/ numel for Mean).
Tensor mse_loss_double_backward(const Tensor& grad, IntArrayRef self_sizes, IntArrayRef target_sizes,
                                int64_t reduction);
Tensor mse_loss_double_backward_grad_output(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                                            const Tensor& target, int64_t reduction);
// The gradients of native_layer_norm_backward's outputs (grad_input, grad_weight, grad_bias)
// with respect to (grad_out, input, weight). See Note [Layer norm double backward].
std::tuple<Tensor, Tensor, Tensor> layer_norm_double_backward(
    const Tensor& input, const Tensor& weight, const Tensor& grad_grad_input, const Tensor& grad_grad_weight,
    const Tensor& grad_grad_bias, const Tensor& grad_out, const Tensor& mean, const Tensor& rstd,
    IntArrayRef normalized_shape, std::array<bool, 3> output_mask);
// embedding_dense_backward is linear in grad_output: its adjoint gathers rows back.
Tensor embedding_dense_double_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights,
                                       int64_t padding_idx, bool scale_grad_by_freq);
// The factor native_dropout scaled kept elements by: 1 / (1 - p) when training (0 for p = 1).
double dropout_scale(double p, std::optional<bool> train);
Tensor index_select_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& index);
Tensor gather_backward(const Tensor& grad, IntArrayRef self_sizes, int64_t dim, const Tensor& index, bool sparse_grad);
// scatter_add reads src only where index reaches: the gradient is grad gathered there, zero
// over the rest of src.
Tensor scatter_add_src_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef src_sizes);
Tensor masked_fill_value_backward(const Tensor& grad, const Tensor& mask);
// The pieces of grad that cat (stack) made of each input, one per element of the list; a
// legacy empty input (shape [0]) gets an empty gradient.
std::vector<Tensor> cat_tensors_backward(const Tensor& grad, const std::vector<std::vector<int64_t>>& sizes,
                                         const std::vector<ScalarType>& dtypes, int64_t dim);
std::vector<Tensor> stack_tensors_backward(const Tensor& grad, int64_t dim, const std::vector<ScalarType>& dtypes);
// d var / dx = 2 (x - mean) / (N - correction), spread over the reduced dims.
Tensor var_backward(const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim,
                    const std::optional<Scalar>& correction, bool keepdim);
Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim,
                    const std::optional<Scalar>& correction, bool keepdim);
// The sum of grad from each position to the end of dim (cumsum reversed).
Tensor cumsum_backward(const Tensor& grad, int64_t dim);
// A Tensor? argument's sizes, or None (convolution_backward's bias_sizes).
std::optional<std::vector<int64_t>> optional_sizes(const Tensor& t);
// im2col's adjoint: col2im back to the input's last two dims.
Tensor im2col_backward(const Tensor& grad, IntArrayRef input_sizes, IntArrayRef kernel_size, IntArrayRef dilation,
                       IntArrayRef padding, IntArrayRef stride);
// The gradients of convolution_backward's (grad_input, grad_weight, grad_bias) with respect
// to (grad_output, input, weight). See Note [Convolution double backward].
std::tuple<Tensor, Tensor, Tensor> _convolution_double_backward(
    const Tensor& grad_grad_input, const Tensor& grad_grad_weight, const Tensor& grad_grad_bias,
    const Tensor& grad_output, const Tensor& weight, const Tensor& input, IntArrayRef stride, IntArrayRef padding,
    IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups,
    std::array<bool, 3> output_mask);
// A max pooling's backward (2-d or 3-d, sliding or adaptive: `spatial_dims`) is linear in
// grad_output: its adjoint reads grad at the indices, flat within the last spatial_dims dims.
Tensor max_pool_double_backward(const Tensor& grad, const Tensor& indices, int64_t spatial_dims);
// The last n of sizes (an adaptive pooling's output size, read from its grad_output).
std::vector<int64_t> trailing_sizes(IntArrayRef sizes, int64_t n);
Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef source_sizes);

}  // namespace tg::autograd
