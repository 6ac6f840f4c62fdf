// View operators: each result shares its input's storage and differs only in sizes, strides
// and storage offset, so one device-agnostic kernel serves every backend (no data is read).
// A view of `self` addresses element (i_0, ..., i_{n-1}) at
//   storage_offset' + sum_k i_k * stride'(k)
// where the primed geometry is computed here from self's. reshape, t, narrow, expand_as and
// flatten are decompositions into the views (CompositeImplicitAutograd).
#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "NativeFunctions.h"
#include "core/checked_math.h"
#include "tensorgen/ops.h"

namespace tg::native {

namespace {

// A tensor over self's storage with the given geometry. It keeps self's dispatch keys, so a
// view of a CUDA (or PrivateUse1) tensor dispatches as its base does.
Tensor make_view(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  auto impl = make_intrusive<TensorImpl>(self.storage(), self.scalar_type(), sizes);
  impl->set_sizes_and_strides(sizes, strides);
  impl->set_storage_offset(storage_offset);
  impl->key_set().for_each([&](DispatchKey k) { impl->remove_key(k); });
  self.key_set().for_each([&](DispatchKey k) { impl->add_key(k); });
  TensorImpl* base = self.unsafeGetTensorImpl();
  impl->set_view_base(IntrusivePtr<TensorImpl>(base->view_base() ? base->view_base() : base));
  return Tensor(std::move(impl));
}

// `shape` with its one -1 (if any) replaced by the size that makes numel elements, as
// PyTorch's infer_size.
DimVector infer_size(const char* op, IntArrayRef shape, int64_t numel) {
  DimVector result(shape);
  std::optional<size_t> infer_dim;
  DimVector given;  // the sizes other than -1; their product is checked (See Note [Overflow of sizes])
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      TG_CHECK(!infer_dim, "[", op, "] only one dimension can be inferred, got shape ", shape);
      infer_dim = d;
    } else {
      TG_CHECK(shape[d] >= 0, "[", op, "] invalid shape dimension ", shape[d], " in shape ", shape);
      given.push_back(shape[d]);
    }
  }
  const int64_t known = checked_numel(op, given);
  if (infer_dim) {
    TG_CHECK(known != 0, "[", op, "] cannot reshape tensor of 0 elements into shape ", shape,
             " because the unspecified dimension size -1 can be any value and is ambiguous");
    TG_CHECK(numel % known == 0, "[", op, "] shape '", shape, "' is invalid for input of size ", numel);
    result[*infer_dim] = numel / known;
  } else {
    TG_CHECK(numel == known, "[", op, "] shape '", shape, "' is invalid for input of size ", numel);
  }
  return result;
}

// Note [Strides of a view with a new shape]
// PyTorch's computeStride. The old dims split into "chunks": maximal runs of dims that are
// contiguous with one another (stride(k-1) == size(k) * stride(k), ignoring size-1 dims).
// Within a chunk the elements are evenly spaced by the chunk's innermost stride, so any new
// dims whose sizes multiply to the chunk's numel can view it. A new dim that would span two
// chunks has no single stride: then there is no view (nullopt) and reshape must copy.
std::optional<DimVector> compute_stride(IntArrayRef old_sizes, IntArrayRef old_strides, IntArrayRef new_sizes) {
  if (old_sizes.empty()) return DimVector(new_sizes.size(), 1);
  // Checked: a zero-size dim after a huge one makes numel 0, but a plain running product
  // overflows first (See Note [Overflow of sizes]).
  const int64_t numel = checked_numel("view", old_sizes);
  if (numel == 0 && old_sizes == new_sizes) return DimVector(old_strides);
  DimVector new_strides(new_sizes.size());
  if (numel == 0) {
    // Any strides would do; use those of a contiguous tensor.
    contiguous_strides(new_sizes, new_strides.data());
    return new_strides;
  }
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(old_sizes.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= old_sizes[tensor_d];
    const bool chunk_ends = tensor_d == 0 || (old_sizes[tensor_d - 1] != 1 &&
                                              old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
      new_strides[view_d] = view_numel * chunk_base_stride;
      view_numel *= new_sizes[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (tensor_d > 0) {
      chunk_base_stride = old_strides[tensor_d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
}

[[noreturn]] void zero_dim_error(const char* op) {
  TG_THROW(IndexError, "[", op, "] cannot be applied to a 0-dim tensor");
}

}  // namespace

Tensor view(const Tensor& self, IntArrayRef size) {
  DimVector sizes = infer_size("view", size, self.numel());
  std::optional<DimVector> strides = compute_stride(self.sizes(), self.strides(), sizes);
  TG_CHECK(strides.has_value(), "[view] view size is not compatible with input tensor's size and stride (at least "
           "one dimension spans across two contiguous subspaces): tensor sizes ", self.sizes(), ", strides ",
           self.strides(), ", requested shape ", size, ". Use .reshape(...) instead.");
  return make_view(self, sizes, *strides, self.storage_offset());
}

Tensor reshape(const Tensor& self, IntArrayRef shape) {
  DimVector sizes = infer_size("reshape", shape, self.numel());
  if (compute_stride(self.sizes(), self.strides(), sizes)) return self.view(sizes);
  return self.clone(MemoryFormat::Contiguous).view(sizes);
}

Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  TG_CHECK(size.size() == stride.size(), "[as_strided] expected as many strides as sizes, got sizes ", size,
           " and strides ", stride);
  for (int64_t s : size) TG_CHECK_VALUE(s >= 0, "[as_strided] sizes must be non-negative, got ", size);
  for (int64_t s : stride) TG_CHECK_VALUE(s >= 0, "[as_strided] negative strides are not supported, got ", stride);
  const int64_t offset = storage_offset.value_or(self.storage_offset());
  TG_CHECK_VALUE(offset >= 0, "[as_strided] storage offset must be non-negative, got ", offset);
  Tensor result = make_view(self, size, stride, offset);
  const size_t needed = result.unsafeGetTensorImpl()->required_storage_bytes();
  TG_CHECK(needed <= self.storage()->nbytes(), "[as_strided] sizes ", size, ", strides ", stride,
           " and storage offset ", offset, " need a storage of ", needed, " bytes, but the storage has ",
           self.storage()->nbytes(), " bytes");
  return result;
}

Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  const int64_t ndim = self.dim();
  dim0 = maybe_wrap_dim(dim0, ndim, "transpose");
  dim1 = maybe_wrap_dim(dim1, ndim, "transpose");
  DimVector sizes(self.sizes());
  DimVector strides(self.strides());
  if (ndim > 0) {
    std::swap(sizes[dim0], sizes[dim1]);
    std::swap(strides[dim0], strides[dim1]);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor t(const Tensor& self) {
  TG_CHECK(self.dim() <= 2, "[t] t() expects a tensor with <= 2 dimensions, but self is ", self.dim(),
           "D; use transpose(dim0, dim1) or permute(dims)");
  return self.transpose(0, self.dim() < 2 ? 0 : 1);
}

Tensor permute(const Tensor& self, IntArrayRef dims) {
  const int64_t ndim = self.dim();
  TG_CHECK(static_cast<int64_t>(dims.size()) == ndim, "[permute] number of dims don't match in permute: the tensor "
           "has ", ndim, " dims, but dims ", dims, " has ", dims.size());
  DimVector sizes(dims.size());
  DimVector strides(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = maybe_wrap_dim(dims[i], ndim, "permute");
    TG_CHECK(!seen[d], "[permute] repeated dim in permute: dims ", dims);
    seen[d] = true;
    sizes[i] = self.sizes()[d];
    strides[i] = self.strides()[d];
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  if (self.dim() == 0) zero_dim_error("select");
  dim = maybe_wrap_dim(dim, self.dim(), "select");
  const int64_t size = self.sizes()[dim];
  TG_CHECK_INDEX(index >= -size && index < size, "[select] index ", index, " is out of range for dimension ", dim,
                 " with size ", size, " (expected to be in range of [", -size, ", ", size - 1, "])");
  if (index < 0) index += size;
  DimVector sizes(self.sizes());
  DimVector strides(self.strides());
  sizes.erase(static_cast<size_t>(dim));
  strides.erase(static_cast<size_t>(dim));
  return make_view(self, sizes, strides, self.storage_offset() + index * self.strides()[dim]);
}

Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  if (self.dim() == 0) zero_dim_error("slice");
  dim = maybe_wrap_dim(dim, self.dim(), "slice");
  TG_CHECK_VALUE(step > 0, "[slice] slice step must be positive, got ", step);
  const int64_t size = self.sizes()[dim];
  // Python's rules: negative bounds count from the end, then both clamp to [0, size].
  int64_t first = start.value_or(0);
  int64_t last = end.value_or(std::numeric_limits<int64_t>::max());
  if (first < 0) first += size;
  if (last < 0) last += size;
  first = std::clamp<int64_t>(first, 0, size);
  last = std::clamp<int64_t>(last, first, size);
  DimVector sizes(self.sizes());
  DimVector strides(self.strides());
  // ceil((last - first) / step), without the overflow of last - first + step - 1 for a huge step.
  sizes[dim] = last == first ? 0 : 1 + (last - first - 1) / step;
  // stride * step and first * stride stay inside the base whenever the result has two or more
  // elements along dim. A dim of one element, or a tensor with none, may carry any stride,
  // and the products can pass int64 (found by the operator sweep under UBSan): there the
  // stride, or the base's offset, is kept, which no element's address depends on.
  int64_t product = 0;
  if (!mul_overflows(strides[dim], step, &product)) strides[dim] = product;
  int64_t offset = self.storage_offset();
  if (!mul_overflows(first, self.strides()[dim], &product) && !add_overflows(offset, product, &product)) {
    offset = product;
  }
  return make_view(self, sizes, strides, offset);
}

Tensor select_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t dim, int64_t index) {
  Tensor grad_input = zeros(input_sizes, grad_output.options());
  grad_input.select(dim, index).copy_(grad_output);
  return grad_input;
}

Tensor slice_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step) {
  Tensor grad_input = zeros(input_sizes, grad_output.options());
  grad_input.slice(dim, start, end, step).copy_(grad_output);
  return grad_input;
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  if (self.dim() == 0) zero_dim_error("narrow");
  dim = maybe_wrap_dim(dim, self.dim(), "narrow");
  const int64_t size = self.size(dim);
  TG_CHECK_VALUE(length >= 0, "[narrow] length must be non-negative, got ", length);
  TG_CHECK_INDEX(start >= -size && start <= size, "[narrow] start out of range (expected to be in range of [", -size,
                 ", ", size, "], but got ", start, ")");
  if (start < 0) start += size;
  TG_CHECK_VALUE(start <= size - length, "[narrow] start (", start, ") + length (", length,
                 ") exceeds dimension size (", size, ")");
  return self.slice(dim, start, start + length, 1);
}

Tensor expand(const Tensor& self, IntArrayRef size, bool /*implicit*/) {
  const int64_t ndim = self.dim();
  const int64_t new_ndim = static_cast<int64_t>(size.size());
  TG_CHECK(new_ndim >= ndim, "[expand] the number of sizes provided (", new_ndim, ") must be greater or equal to "
           "the number of dimensions in the tensor (", ndim, "); tensor sizes ", self.sizes(), ", size ", size);
  DimVector sizes(size);
  DimVector strides(size.size());
  // New dims go in front; an existing dim keeps its stride unless it grows from 1 (stride 0).
  for (int64_t i = new_ndim - 1; i >= 0; --i) {
    const int64_t offset = ndim - new_ndim + i;
    const int64_t old_size = offset >= 0 ? self.sizes()[offset] : 1;
    const int64_t new_dim_stride = i + 1 < new_ndim ? sizes[i + 1] * strides[i + 1] : 1;
    const int64_t old_stride = offset >= 0 ? self.strides()[offset] : new_dim_stride;
    int64_t target = size[i];
    if (target == -1) {
      TG_CHECK(offset >= 0, "[expand] the expanded size of the tensor (-1) isn't allowed in a leading, "
               "non-existing dimension ", i);
      target = old_size;
    }
    TG_CHECK(target >= 0, "[expand] invalid size ", target, " at dimension ", i, " in size ", size);
    if (old_size == target) {
      strides[i] = old_stride;
    } else {
      TG_CHECK(old_size == 1, "[expand] the expanded size of the tensor (", target, ") must match the existing size (",
               old_size, ") at non-singleton dimension ", i, ".  Target sizes: ", size, ".  Tensor sizes: ",
               self.sizes());
      strides[i] = 0;
    }
    sizes[i] = target;
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor expand_as(const Tensor& self, const Tensor& other) { return self.expand(other.sizes()); }

Tensor squeeze(const Tensor& self) {
  DimVector sizes;
  DimVector strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.sizes()[d] == 1) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor squeeze_dim(const Tensor& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim(), "squeeze");
  DimVector sizes(self.sizes());
  DimVector strides(self.strides());
  // A dim whose size is not 1 is left alone, as in PyTorch.
  if (self.dim() > 0 && sizes[dim] == 1) {
    sizes.erase(static_cast<size_t>(dim));
    strides.erase(static_cast<size_t>(dim));
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim() + 1, "unsqueeze");
  DimVector sizes(self.sizes());
  DimVector strides(self.strides());
  const int64_t stride = dim >= self.dim() ? 1 : sizes[dim] * strides[dim];
  sizes.insert(static_cast<size_t>(dim), 1);
  strides.insert(static_cast<size_t>(dim), stride);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  start_dim = maybe_wrap_dim(start_dim, self.dim(), "flatten");
  end_dim = maybe_wrap_dim(end_dim, self.dim(), "flatten");
  TG_CHECK(start_dim <= end_dim, "[flatten] start_dim cannot come after end_dim, got start_dim ", start_dim,
           " and end_dim ", end_dim);
  if (self.dim() == 0) return self.reshape({1});
  if (start_dim == end_dim) return self;
  DimVector shape;
  for (int64_t d = 0; d < start_dim; ++d) shape.push_back(self.sizes()[d]);
  // The merged size must fit in int64 even when a zero elsewhere makes numel 0.
  shape.push_back(checked_numel("flatten", self.sizes().slice(start_dim, end_dim - start_dim + 1)));
  for (int64_t d = end_dim + 1; d < self.dim(); ++d) shape.push_back(self.sizes()[d]);
  return self.reshape(shape);
}

}  // namespace tg::native
