// The argument rules of the neural-network kernels (nn_rules.h).
#include "nn_rules.h"

#include "TensorMethods.h"
#include "core/host_buffer.h"
#include "core/wrap_dim.h"
#include "cpu/copy.h"
#include "index_rules.h"
#include "ops/structured.h"
#include "shape_utils.h"
#include "tensorgen/ops.h"

namespace tg {

namespace {

bool defined(const std::optional<Tensor>& t) { return t.has_value() && t->defined(); }

int64_t product(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

}  // namespace

void check_no_half_to_float(const char* op, bool half_to_float) {
  TG_CHECK_NOT_IMPLEMENTED(!half_to_float, "[", op, "] half_to_float=true (float16 in, float32 out) is not "
                           "supported on the CPU; convert the input with .to(kFloat) first");
}

LayerNormShape check_layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                                const std::optional<Tensor>& bias) {
  const int64_t normalized_ndim = static_cast<int64_t>(normalized_shape.size());
  TG_CHECK_VALUE(normalized_ndim >= 1, "[layer_norm] expected normalized_shape to be at least 1-dimensional, i.e., ",
                 "containing at least one element, but got normalized_shape = ", normalized_shape);
  TG_CHECK_VALUE(!defined(weight) || weight->sizes() == normalized_shape, "[layer_norm] expected weight to be of ",
                 "same shape as normalized_shape, but got weight of shape ", weight->sizes(),
                 " and normalized_shape = ", normalized_shape);
  TG_CHECK_VALUE(!defined(bias) || bias->sizes() == normalized_shape, "[layer_norm] expected bias to be of same ",
                 "shape as normalized_shape, but got bias of shape ", bias->sizes(), " and normalized_shape = ",
                 normalized_shape);
  const int64_t axis = input.dim() - normalized_ndim;
  TG_CHECK_VALUE(axis >= 0 && input.sizes().slice(static_cast<size_t>(axis)) == normalized_shape,
                 "[layer_norm] given normalized_shape=", normalized_shape, ", expected input with shape [*",
                 normalized_shape, "], but got input of size ", input.sizes());
  LayerNormShape shape;
  shape.stats = DimVector(input.sizes());
  for (size_t d = static_cast<size_t>(axis); d < shape.stats.size(); ++d) shape.stats[d] = 1;
  shape.rows = product(shape.stats);
  shape.row_size = product(normalized_shape);
  return shape;
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward_outputs(const Tensor& input, IntArrayRef normalized_shape,
                                                               std::array<bool, 3> output_mask) {
  const auto make = [&](bool wanted, IntArrayRef sizes) {
    return wanted ? make_empty_tensor(sizes, input.scalar_type(), input.device()) : Tensor();
  };
  return {make(output_mask[0], input.sizes()), make(output_mask[1], normalized_shape),
          make(output_mask[2], normalized_shape)};
}

LayerNormShape check_layer_norm_backward(const Tensor& grad_out, const Tensor& input, IntArrayRef normalized_shape,
                                         const Tensor& mean, const Tensor& rstd, const std::optional<Tensor>& weight,
                                         const std::optional<Tensor>& bias) {
  LayerNormShape shape = check_layer_norm(input, normalized_shape, weight, bias);
  TG_CHECK_VALUE(grad_out.sizes() == input.sizes(), "[layer_norm_backward] expected grad_out of input's shape ",
                 input.sizes(), ", got ", grad_out.sizes());
  TG_CHECK_VALUE(mean.numel() == shape.rows && rstd.numel() == shape.rows,
                 "[layer_norm_backward] expected mean and rstd of shape ", IntArrayRef(shape.stats), ", got ",
                 mean.sizes(), " and ", rstd.sizes());
  return shape;
}

double check_dropout(const Tensor& input, double p) {
  TG_CHECK_VALUE(p >= 0.0 && p <= 1.0, "[dropout] dropout probability has to be between 0 and 1, but got ", p);
  TG_CHECK_TYPE(is_floating_type(input.scalar_type()), "[dropout] expected a floating input, got ",
                input.scalar_type());
  // p = 1 drops everything: scale 0 rather than 1 / 0 (the formula's dropout_scale agrees).
  return p == 1.0 ? 0.0 : 1.0 / (1.0 - p);
}

std::tuple<Tensor, Tensor> dropout_eval(const Tensor& input) {
  Tensor output = make_empty_tensor(input.sizes(), input.scalar_type(), input.device());
  output.copy_(input);
  Tensor mask = make_empty_tensor(input.sizes(), kBool, input.device());
  mask.fill_(true);
  return {output, mask};
}

DimVector check_dropout_backward(const Tensor& grad_output, const Tensor& mask) {
  TG_CHECK_TYPE(mask.scalar_type() == kBool, "[native_dropout_backward] mask should be a bool tensor, got ",
                mask.scalar_type());
  return infer_broadcast_size(grad_output.sizes(), mask.sizes(), "native_dropout_backward");
}

void check_embedding_backward_shapes(const Tensor& grad_output, const Tensor& indices, int64_t num_weights) {
  TG_CHECK_TYPE(indices.scalar_type() == kLong || indices.scalar_type() == kInt, "[embedding_backward] expected ",
                "indices of dtype int64 or int32, got ", indices.scalar_type());
  TG_CHECK_VALUE(num_weights >= 0, "[embedding_backward] num_weights must be non-negative, got ", num_weights);
  TG_CHECK_VALUE(grad_output.dim() == indices.dim() + 1 &&
                     grad_output.sizes().slice(0, static_cast<size_t>(indices.dim())) == indices.sizes(),
                 "[embedding_backward] expected grad_output of shape ", indices.sizes(), " + [embedding_dim], got ",
                 grad_output.sizes());
}

EmbeddingIndices check_embedding_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights) {
  check_embedding_backward_shapes(grad_output, indices, num_weights);
  EmbeddingIndices result{index_on_cpu(indices), host_buffer<int64_t>("embedding_backward", num_weights, 0)};
  const int64_t* index = result.indices.data_ptr<int64_t>();
  for (int64_t i = 0; i < result.indices.numel(); ++i) {
    TG_CHECK_INDEX(index[i] >= 0 && index[i] < num_weights, "[embedding_backward] index ", index[i], " is out of ",
                   "range for ", num_weights, " embeddings");
    ++result.frequency[static_cast<size_t>(index[i])];
  }
  return result;
}

Tensor check_nll_targets(const char* op, const Tensor& target, int64_t classes, int64_t ignore_index) {
  Tensor targets = index_on_cpu(target);
  const int64_t* data = targets.data_ptr<int64_t>();
  for (int64_t i = 0; i < targets.numel(); ++i) {
    const int64_t t = data[i];
    TG_CHECK_INDEX(t == ignore_index || (t >= 0 && t < classes), "[", op, "] target ", t, " is out of bounds: ",
                   "expected a class index in [0, ", classes, ") or ignore_index (", ignore_index, ")");
  }
  return targets;
}

bool is_legacy_empty(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

CatShape check_cat(TensorList tensors, int64_t dim) {
  TG_CHECK_VALUE(!tensors.empty(), "[cat] expected a non-empty list of Tensors");
  ResultTypeState promotion;
  const Tensor* reference = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TG_CHECK_VALUE(t.dim() > 0, "[cat] zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    TG_CHECK(t.device() == tensors[0].device(), "[cat] expected all tensors on one device, got ", tensors[0].device(),
             " (position 0) and ", t.device(), " (position ", i, ")");
    promotion.add_tensor(t.scalar_type(), t.dim());
    if (reference == nullptr && !is_legacy_empty(t)) reference = &t;
  }
  CatShape shape;
  shape.dtype = promotion.result();
  if (reference == nullptr) {
    shape.sizes = DimVector(tensors[0].sizes());
    return shape;
  }
  shape.dim = maybe_wrap_dim(dim, reference->dim(), "cat");
  shape.sizes = DimVector(reference->sizes());
  shape.sizes[static_cast<size_t>(shape.dim)] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (is_legacy_empty(t)) continue;
    TG_CHECK_VALUE(t.dim() == reference->dim(), "[cat] tensors must have same number of dimensions: got ",
                   reference->dim(), " and ", t.dim(), " (tensor number ", i, " in the list)");
    for (int64_t d = 0; d < t.dim(); ++d) {
      TG_CHECK_VALUE(d == shape.dim || t.size(d) == reference->size(d), "[cat] sizes of tensors must match except in ",
                     "dimension ", shape.dim, ". Expected size ", reference->size(d), " but got size ", t.size(d),
                     " for tensor number ", i, " in the list");
    }
    shape.sizes[static_cast<size_t>(shape.dim)] += t.size(shape.dim);
  }
  return shape;
}

Im2colCall check_im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                        IntArrayRef stride) {
  TG_CHECK_VALUE((self.dim() == 3 || self.dim() == 4) && self.size(-3) > 0 && self.size(-2) > 0 && self.size(-1) > 0,
                 "[im2col] expected a non-empty 3D or 4D (batch mode) input, got shape ", self.sizes());
  Im2colCall call;
  call.shape = im2col_shape("im2col", self.size(-2), self.size(-1), kernel_size, dilation, padding, stride);
  const bool batched = self.dim() == 4;
  call.batch = batched ? self.size(0) : 1;
  call.channels = self.size(-3);
  if (batched) call.out_sizes.push_back(call.batch);
  call.out_sizes.push_back(call.channels * call.shape.kernel_area());
  call.out_sizes.push_back(call.shape.positions());
  return call;
}

Im2colCall check_col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
                        IntArrayRef padding, IntArrayRef stride) {
  TG_CHECK_VALUE(self.dim() == 2 || self.dim() == 3, "[col2im] expected a 2D or 3D (batch mode) input, got shape ",
                 self.sizes());
  TG_CHECK_VALUE(output_size.size() == 2, "[col2im] output_size must have 2 elements, got ", output_size);
  Im2colCall call;
  const Im2colShape& s = call.shape =
      im2col_shape("col2im", output_size[0], output_size[1], kernel_size, dilation, padding, stride);
  const bool batched = self.dim() == 3;
  const int64_t rows = self.size(-2);
  TG_CHECK_VALUE(rows % s.kernel_area() == 0, "[col2im] expected size of input's dimension ", self.dim() - 2,
                 " to be divisible by the product of kernel_size, but got input.size(", self.dim() - 2, ")=", rows,
                 " and kernel_size=", kernel_size);
  TG_CHECK_VALUE(self.size(-1) == s.positions(), "[col2im] given output_size=", output_size, ", kernel_size=",
                 kernel_size, ", dilation=", dilation, ", padding=", padding, ", stride=", stride,
                 ", expected size of input's dimension ", self.dim() - 1,
                 " to match the calculated number of sliding blocks ",
                 s.out_height, " * ", s.out_width, " = ", s.positions(), ", but got input.size(", self.dim() - 1,
                 ")=", self.size(-1));
  call.batch = batched ? self.size(0) : 1;
  call.channels = rows / s.kernel_area();
  if (batched) call.out_sizes.push_back(call.batch);
  call.out_sizes.push_back(call.channels);
  call.out_sizes.push_back(s.height);
  call.out_sizes.push_back(s.width);
  return call;
}

}  // namespace tg
