// Meta functions of the reduction family (schemas/reduction.yaml).
#include "NativeFunctions.h"
#include "shape_utils.h"

namespace tg {

namespace {

// max and min have no identity: a reduced dim of size 0 has no answer (IndexError, as PyTorch).
void check_nonempty_reduction(const char* op, const Tensor& self, const DimMask& mask) {
  for (int64_t d = 0; d < self.dim(); ++d) {
    TG_CHECK_INDEX(!mask.test(static_cast<size_t>(d)) || self.sizes()[d] != 0, "[", op, "] expected reduction dim ", d,
                   " to have non-zero size, got a tensor of shape ", self.sizes());
  }
}

}  // namespace

// Integral and bool sums are int64 unless a dtype is given.
TensorMeta meta::sum_IntList_out(const Tensor& self, OptionalIntArrayRef dim, bool keepdim,
                                 std::optional<ScalarType> dtype) {
  const DimMask mask = make_dim_mask(dim, self.dim(), "sum");
  const ScalarType self_dtype = self.scalar_type();
  const ScalarType out_dtype =
      dtype.value_or(is_integral_type(self_dtype, /*include_bool=*/true) ? kLong : self_dtype);
  // With dtype= an out of another dtype is refused, as in LibTorch.
  return TensorMeta{reduced_shape(self.sizes(), mask, keepdim), out_dtype, /*exact_out_dtype=*/dtype.has_value()};
}

TensorMeta meta::mean_out(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  if (dtype.has_value()) {
    TG_CHECK_TYPE(is_floating_type(*dtype), "[mean] could not infer output dtype: the optional dtype must be a ",
                  "floating point dtype, got ", *dtype);
  } else {
    TG_CHECK_TYPE(is_floating_type(self.scalar_type()), "[mean] could not infer output dtype: the input dtype must ",
                  "be a floating point dtype, got ", self.scalar_type(), "; pass dtype= to compute in one");
  }
  const DimMask mask = make_dim_mask(dim, self.dim(), "mean");
  return TensorMeta{reduced_shape(self.sizes(), mask, keepdim), dtype.value_or(self.scalar_type()),
                    /*exact_out_dtype=*/dtype.has_value()};
}

TensorMeta meta::amax_out(const Tensor& self, IntArrayRef dim, bool keepdim) {
  const DimMask mask = make_dim_mask(dim, self.dim(), "amax");
  check_nonempty_reduction("amax", self, mask);
  return TensorMeta{reduced_shape(self.sizes(), mask, keepdim), self.scalar_type()};
}

TensorMeta meta::amin_out(const Tensor& self, IntArrayRef dim, bool keepdim) {
  const DimMask mask = make_dim_mask(dim, self.dim(), "amin");
  check_nonempty_reduction("amin", self, mask);
  return TensorMeta{reduced_shape(self.sizes(), mask, keepdim), self.scalar_type()};
}

// (values, indices): self's dtype and int64.
std::array<TensorMeta, 2> meta::max_dim_max(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "max");
  const DimMask mask = make_dim_mask(IntArrayRef(d), self.dim(), "max");
  check_nonempty_reduction("max", self, mask);
  const DimVector sizes = reduced_shape(self.sizes(), mask, keepdim);
  return {TensorMeta{sizes, self.scalar_type()}, TensorMeta{sizes, kLong}};
}

// Without a dim, argmax indexes the flattened tensor.
TensorMeta meta::argmax_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (!dim.has_value()) {
    TG_CHECK_INDEX(self.numel() != 0, "[argmax] expected reduction dim to be specified for input.numel() == 0, got a ",
                   "tensor of shape ", self.sizes());
    return TensorMeta{keepdim ? DimVector(static_cast<size_t>(self.dim()), 1) : DimVector(), kLong};
  }
  const int64_t d = maybe_wrap_dim(*dim, self.dim(), "argmax");
  const DimMask mask = make_dim_mask(IntArrayRef(d), self.dim(), "argmax");
  check_nonempty_reduction("argmax", self, mask);
  return TensorMeta{reduced_shape(self.sizes(), mask, keepdim), kLong};
}

namespace {

// var and std: the reduced shape, in self's (floating) dtype.
TensorMeta variance_meta(const char* op, const Tensor& self, OptionalIntArrayRef dim, bool keepdim) {
  TG_CHECK_TYPE(is_floating_type(self.scalar_type()), "[", op, "] std and var only support floating point dtypes, ",
                "got ", self.scalar_type());
  const DimMask mask = make_dim_mask(dim, self.dim(), op);
  return TensorMeta{reduced_shape(self.sizes(), mask, keepdim), self.scalar_type()};
}

}  // namespace

TensorMeta meta::var_correction_out(const Tensor& self, OptionalIntArrayRef dim,
                                    const std::optional<Scalar>& /*correction*/, bool keepdim) {
  return variance_meta("var", self, dim, keepdim);
}

TensorMeta meta::std_correction_out(const Tensor& self, OptionalIntArrayRef dim,
                                    const std::optional<Scalar>& /*correction*/, bool keepdim) {
  return variance_meta("std", self, dim, keepdim);
}

}  // namespace tg
