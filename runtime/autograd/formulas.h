// Helpers the derivative formulas in schemas/*.yaml call (PyTorch's FunctionsManual).
// Each is written with public operators, so it serves every backend and records its own
// graph when create_graph asks for higher-order gradients.
#pragma once

#include <optional>
#include <string_view>

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
Tensor maybe_multiply(const Tensor& t, const Scalar& s);
Tensor to_copy_backward(const Tensor& grad, ScalarType self_dtype, Device self_device);
Tensor permute_backwards(const Tensor& grad, IntArrayRef dims);
Tensor abs_backward(const Tensor& grad, const Tensor& self);
Tensor threshold_backward(const Tensor& grad, const Tensor& result, const Scalar& threshold);
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
// max.dim: the gradient goes to the element each index selected.
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                          IntArrayRef input_sizes, bool keepdim);

}  // namespace tg::autograd
