#include "cuda/elementwise_host.h"

#include <algorithm>

#include "ops/scalar_tensor.h"
#include "shape_utils.h"
#include "tensorgen/ops.h"

namespace tg::cuda {

namespace {

// A contiguous device copy of `input` in `dtype`.
Tensor device_copy(const Tensor& input, ScalarType dtype) {
  Tensor copy = make_empty_tensor(input.sizes(), dtype, input.device());
  copy.copy_(input);
  return copy;
}

bool same_elements(const Tensor& a, const Tensor& b) {
  return a.data_ptr() == b.data_ptr() && a.sizes() == b.sizes() && a.strides() == b.strides();
}

}  // namespace

Tensor contiguous_as(const Tensor& t, ScalarType dtype) {
  return t.scalar_type() == dtype && t.is_contiguous() ? t : device_copy(t, dtype);
}

Tensor int64_on(const Tensor& t, Device device) {
  const Tensor on_device = t.device() == device ? t : t.to(device);
  return contiguous_as(on_device, kLong);
}

bool is_cpu_scalar(const Tensor& input, const Tensor& out) { return input.is_cpu() && input.dim() == 0 && !out.is_cpu(); }

ScalarValue scalar_value(const Scalar& value) {
  return value.is_floating_point() ? ScalarValue::floating(value.toDouble()) : ScalarValue::integral(value.toLong());
}

ScalarType kernel_dtype(ScalarType dtype, const Tensor& out, std::initializer_list<const Tensor*> inputs) {
  if (dtype != kHalf && dtype != kBFloat16) return dtype;
  for (const Tensor* input : inputs) {
    if (input->scalar_type() != dtype && !is_cpu_scalar(*input, out)) return kFloat;
  }
  return dtype;
}

ElementwiseLaunch::ElementwiseLaunch(std::string_view op, const Tensor& out, ScalarType out_dtype,
                                     std::initializer_list<Input> inputs)
    : out_(out) {
  written_ = out.scalar_type() == out_dtype ? out : make_empty_tensor(out.sizes(), out_dtype, out.device());
  const IntArrayRef shape = written_.sizes();
  args_.noperands = 1 + static_cast<int>(inputs.size());
  args_.numel = written_.numel();

  // Byte strides per operand, outermost dim first, broadcast to `shape`.
  std::vector<DimVector> strides;
  strides.push_back(DimVector(written_.strides()));
  for (int64_t& s : strides.back()) s *= written_.element_size();
  args_.data[0] = static_cast<char*>(written_.data_ptr());
  args_.dtypes[0] = out_dtype;
  int k = 1;
  for (const Input& input : inputs) {
    const Tensor& t = input.tensor;
    args_.dtypes[k] = input.dtype;
    if (is_cpu_scalar(t, out)) {
      args_.scalars[k] = scalar_value(load_scalar(t.data_ptr(), t.scalar_type()));
      strides.push_back(DimVector(shape.size(), 0));
      ++k;
      continue;
    }
    Tensor read = t;
    if (t.scalar_type() != input.dtype) {
      read = device_copy(t, input.dtype);
    } else if (t.is_alias_of(written_) && !same_elements(t, written_)) {
      read = device_copy(t, t.scalar_type());
    }
    DimVector s = expand_strides(read.sizes(), read.strides(), shape, op);
    for (int64_t& x : s) x *= read.element_size();
    strides.push_back(std::move(s));
    args_.data[k] = static_cast<char*>(read.data_ptr());
    inputs_.push_back(std::move(read));
    ++k;
  }

  // Innermost first, size-1 dims dropped, and merged: an outer dim folds into the merged dim
  // below it (stride s, size n) when its stride is s * n for every operand.
  DimVector sizes;
  std::vector<DimVector> merged(strides.size());
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 1) continue;
    const size_t inner = sizes.size();
    bool mergeable = inner > 0;
    for (size_t o = 0; o < strides.size() && mergeable; ++o) {
      mergeable = strides[o][d] == merged[o][inner - 1] * sizes[inner - 1];
    }
    if (mergeable) {
      sizes[inner - 1] *= shape[d];
    } else {
      sizes.push_back(shape[d]);
      for (size_t o = 0; o < strides.size(); ++o) merged[o].push_back(strides[o][d]);
    }
  }
  TG_CHECK(static_cast<int>(sizes.size()) <= kMaxElementwiseDims, "[", op, "] CUDA elementwise kernels take at most ",
           kMaxElementwiseDims, " dims once contiguous dims are merged; got ", sizes.size(), " for shape ", shape);
  args_.ndim = static_cast<int>(sizes.size());
  args_.contiguous = args_.ndim <= 1;
  for (int d = 0; d < args_.ndim; ++d) {
    args_.sizes[d] = sizes[static_cast<size_t>(d)];
    for (int o = 0; o < args_.noperands; ++o) {
      args_.strides[o][d] = merged[static_cast<size_t>(o)][static_cast<size_t>(d)];
      if (args_.data[o] != nullptr && args_.strides[o][d] != static_cast<int64_t>(element_size(args_.dtypes[o]))) {
        args_.contiguous = false;
      }
    }
  }
}

void ElementwiseLaunch::finish() {
  if (!written_.is_same(out_)) out_.copy_(written_);
}

}  // namespace tg::cuda
