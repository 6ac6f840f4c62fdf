// TEMPORARY: not-implemented definitions for kernels not written yet, so the library
// links while the kernels are written. Delete an entry when its kernel exists; this
// file must be gone before the work is committed as done.
#include "NativeFunctions.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace tg {
Tensor native::empty_cpu(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  TG_THROW(NotImplementedError, "[empty_cpu] kernel not written yet");
}
Tensor native::empty_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  TG_THROW(NotImplementedError, "[empty_like] kernel not written yet");
}
Tensor native::zeros(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  TG_THROW(NotImplementedError, "[zeros] kernel not written yet");
}
Tensor native::zeros_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  TG_THROW(NotImplementedError, "[zeros_like] kernel not written yet");
}
Tensor native::ones(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  TG_THROW(NotImplementedError, "[ones] kernel not written yet");
}
Tensor native::ones_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  TG_THROW(NotImplementedError, "[ones_like] kernel not written yet");
}
Tensor native::full(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  TG_THROW(NotImplementedError, "[full] kernel not written yet");
}
Tensor native::full_like(const Tensor& self, const Scalar& fill_value, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  TG_THROW(NotImplementedError, "[full_like] kernel not written yet");
}
Tensor native::arange(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  TG_THROW(NotImplementedError, "[arange] kernel not written yet");
}
Tensor native::arange_start(const Scalar& start, const Scalar& end, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  TG_THROW(NotImplementedError, "[arange_start] kernel not written yet");
}
Tensor native::arange_start_step(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  TG_THROW(NotImplementedError, "[arange_start_step] kernel not written yet");
}
Tensor native::arange_out_cpu(const Scalar& start, const Scalar& end, const Scalar& step, const Tensor& out) {
  TG_THROW(NotImplementedError, "[arange_out_cpu] kernel not written yet");
}
Tensor native::rand(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  TG_THROW(NotImplementedError, "[rand] kernel not written yet");
}
Tensor native::rand_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  TG_THROW(NotImplementedError, "[rand_like] kernel not written yet");
}
Tensor native::randn(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  TG_THROW(NotImplementedError, "[randn] kernel not written yet");
}
Tensor native::randn_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory, std::optional<MemoryFormat> memory_format) {
  TG_THROW(NotImplementedError, "[randn_like] kernel not written yet");
}
Tensor native::uniform_cpu_(const Tensor& self, double from, double to) {
  TG_THROW(NotImplementedError, "[uniform_cpu_] kernel not written yet");
}
Tensor native::normal_cpu_(const Tensor& self, double mean, double std) {
  TG_THROW(NotImplementedError, "[normal_cpu_] kernel not written yet");
}
Tensor native::fill_cpu_(const Tensor& self, const Scalar& value) {
  TG_THROW(NotImplementedError, "[fill_cpu_] kernel not written yet");
}
Tensor native::zero_(const Tensor& self) {
  TG_THROW(NotImplementedError, "[zero_] kernel not written yet");
}
Tensor native::copy_cpu_(const Tensor& self, const Tensor& src, bool non_blocking) {
  TG_THROW(NotImplementedError, "[copy_cpu_] kernel not written yet");
}
Tensor native::clone(const Tensor& self, std::optional<MemoryFormat> memory_format) {
  TG_THROW(NotImplementedError, "[clone] kernel not written yet");
}
Tensor native::_to_copy(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory, bool non_blocking, std::optional<MemoryFormat> memory_format) {
  TG_THROW(NotImplementedError, "[_to_copy] kernel not written yet");
}
Tensor native::to_dtype_layout(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory, bool non_blocking, bool copy, std::optional<MemoryFormat> memory_format) {
  TG_THROW(NotImplementedError, "[to_dtype_layout] kernel not written yet");
}
Tensor native::to_dtype(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy, std::optional<MemoryFormat> memory_format) {
  TG_THROW(NotImplementedError, "[to_dtype] kernel not written yet");
}
Tensor native::to_device(const Tensor& self, Device device, ScalarType dtype, bool non_blocking, bool copy, std::optional<MemoryFormat> memory_format) {
  TG_THROW(NotImplementedError, "[to_device] kernel not written yet");
}
void native::mm_out_cpu(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  TG_THROW(NotImplementedError, "[mm_out_cpu] kernel not written yet");
}
void native::bmm_out_cpu(const Tensor& self, const Tensor& mat2, const Tensor& out) {
  TG_THROW(NotImplementedError, "[bmm_out_cpu] kernel not written yet");
}
void native::addmm_out_cpu(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha, const Tensor& out) {
  TG_THROW(NotImplementedError, "[addmm_out_cpu] kernel not written yet");
}
Tensor native::matmul(const Tensor& self, const Tensor& other) {
  TG_THROW(NotImplementedError, "[matmul] kernel not written yet");
}
Tensor native::matmul_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  TG_THROW(NotImplementedError, "[matmul_out] kernel not written yet");
}
Tensor native::linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  TG_THROW(NotImplementedError, "[linear] kernel not written yet");
}
void native::add_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  TG_THROW(NotImplementedError, "[add_out_cpu] kernel not written yet");
}
Tensor native::add_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  TG_THROW(NotImplementedError, "[add_scalar] kernel not written yet");
}
Tensor native::add_scalar_(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  TG_THROW(NotImplementedError, "[add_scalar_] kernel not written yet");
}
void native::sub_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& out) {
  TG_THROW(NotImplementedError, "[sub_out_cpu] kernel not written yet");
}
Tensor native::sub_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  TG_THROW(NotImplementedError, "[sub_scalar] kernel not written yet");
}
Tensor native::sub_scalar_(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  TG_THROW(NotImplementedError, "[sub_scalar_] kernel not written yet");
}
void native::mul_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  TG_THROW(NotImplementedError, "[mul_out_cpu] kernel not written yet");
}
Tensor native::mul_scalar(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[mul_scalar] kernel not written yet");
}
Tensor native::mul_scalar_(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[mul_scalar_] kernel not written yet");
}
void native::div_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  TG_THROW(NotImplementedError, "[div_out_cpu] kernel not written yet");
}
Tensor native::div_scalar(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[div_scalar] kernel not written yet");
}
Tensor native::div_scalar_(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[div_scalar_] kernel not written yet");
}
void native::pow_out_cpu(const Tensor& self, const Tensor& exponent, const Tensor& out) {
  TG_THROW(NotImplementedError, "[pow_out_cpu] kernel not written yet");
}
Tensor native::pow_tensor_scalar(const Tensor& self, const Scalar& exponent) {
  TG_THROW(NotImplementedError, "[pow_tensor_scalar] kernel not written yet");
}
Tensor native::pow_scalar_(const Tensor& self, const Scalar& exponent) {
  TG_THROW(NotImplementedError, "[pow_scalar_] kernel not written yet");
}
Tensor native::pow_scalar_tensor(const Scalar& self, const Tensor& exponent) {
  TG_THROW(NotImplementedError, "[pow_scalar_tensor] kernel not written yet");
}
void native::neg_out_cpu(const Tensor& self, const Tensor& out) {
  TG_THROW(NotImplementedError, "[neg_out_cpu] kernel not written yet");
}
void native::abs_out_cpu(const Tensor& self, const Tensor& out) {
  TG_THROW(NotImplementedError, "[abs_out_cpu] kernel not written yet");
}
void native::exp_out_cpu(const Tensor& self, const Tensor& out) {
  TG_THROW(NotImplementedError, "[exp_out_cpu] kernel not written yet");
}
void native::log_out_cpu(const Tensor& self, const Tensor& out) {
  TG_THROW(NotImplementedError, "[log_out_cpu] kernel not written yet");
}
void native::sqrt_out_cpu(const Tensor& self, const Tensor& out) {
  TG_THROW(NotImplementedError, "[sqrt_out_cpu] kernel not written yet");
}
void native::relu_out_cpu(const Tensor& self, const Tensor& out) {
  TG_THROW(NotImplementedError, "[relu_out_cpu] kernel not written yet");
}
void native::sigmoid_out_cpu(const Tensor& self, const Tensor& out) {
  TG_THROW(NotImplementedError, "[sigmoid_out_cpu] kernel not written yet");
}
void native::tanh_out_cpu(const Tensor& self, const Tensor& out) {
  TG_THROW(NotImplementedError, "[tanh_out_cpu] kernel not written yet");
}
void native::clamp_out_cpu(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max, const Tensor& out) {
  TG_THROW(NotImplementedError, "[clamp_out_cpu] kernel not written yet");
}
void native::where_out_cpu(const Tensor& condition, const Tensor& self, const Tensor& other, const Tensor& out) {
  TG_THROW(NotImplementedError, "[where_out_cpu] kernel not written yet");
}
void native::eq_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  TG_THROW(NotImplementedError, "[eq_out_cpu] kernel not written yet");
}
Tensor native::eq_scalar(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[eq_scalar] kernel not written yet");
}
Tensor native::eq_scalar_(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[eq_scalar_] kernel not written yet");
}
void native::ne_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  TG_THROW(NotImplementedError, "[ne_out_cpu] kernel not written yet");
}
Tensor native::ne_scalar(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[ne_scalar] kernel not written yet");
}
Tensor native::ne_scalar_(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[ne_scalar_] kernel not written yet");
}
void native::lt_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  TG_THROW(NotImplementedError, "[lt_out_cpu] kernel not written yet");
}
Tensor native::lt_scalar(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[lt_scalar] kernel not written yet");
}
Tensor native::lt_scalar_(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[lt_scalar_] kernel not written yet");
}
void native::le_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  TG_THROW(NotImplementedError, "[le_out_cpu] kernel not written yet");
}
Tensor native::le_scalar(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[le_scalar] kernel not written yet");
}
Tensor native::le_scalar_(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[le_scalar_] kernel not written yet");
}
void native::gt_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  TG_THROW(NotImplementedError, "[gt_out_cpu] kernel not written yet");
}
Tensor native::gt_scalar(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[gt_scalar] kernel not written yet");
}
Tensor native::gt_scalar_(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[gt_scalar_] kernel not written yet");
}
void native::ge_out_cpu(const Tensor& self, const Tensor& other, const Tensor& out) {
  TG_THROW(NotImplementedError, "[ge_out_cpu] kernel not written yet");
}
Tensor native::ge_scalar(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[ge_scalar] kernel not written yet");
}
Tensor native::ge_scalar_(const Tensor& self, const Scalar& other) {
  TG_THROW(NotImplementedError, "[ge_scalar_] kernel not written yet");
}
Tensor native::sum(const Tensor& self, std::optional<ScalarType> dtype) {
  TG_THROW(NotImplementedError, "[sum] kernel not written yet");
}
void native::sum_out_cpu(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype, const Tensor& out) {
  TG_THROW(NotImplementedError, "[sum_out_cpu] kernel not written yet");
}
Tensor native::mean(const Tensor& self, std::optional<ScalarType> dtype) {
  TG_THROW(NotImplementedError, "[mean] kernel not written yet");
}
void native::mean_out_cpu(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype, const Tensor& out) {
  TG_THROW(NotImplementedError, "[mean_out_cpu] kernel not written yet");
}
void native::amax_out_cpu(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  TG_THROW(NotImplementedError, "[amax_out_cpu] kernel not written yet");
}
void native::amin_out_cpu(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  TG_THROW(NotImplementedError, "[amin_out_cpu] kernel not written yet");
}
Tensor native::max(const Tensor& self) {
  TG_THROW(NotImplementedError, "[max] kernel not written yet");
}
void native::max_out_cpu(const Tensor& self, int64_t dim, bool keepdim, const Tensor& max, const Tensor& max_values) {
  TG_THROW(NotImplementedError, "[max_out_cpu] kernel not written yet");
}
void native::argmax_out_cpu(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  TG_THROW(NotImplementedError, "[argmax_out_cpu] kernel not written yet");
}
Tensor native::view(const Tensor& self, IntArrayRef size) {
  TG_THROW(NotImplementedError, "[view] kernel not written yet");
}
Tensor native::reshape(const Tensor& self, IntArrayRef shape) {
  TG_THROW(NotImplementedError, "[reshape] kernel not written yet");
}
Tensor native::as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  TG_THROW(NotImplementedError, "[as_strided] kernel not written yet");
}
Tensor native::transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  TG_THROW(NotImplementedError, "[transpose] kernel not written yet");
}
Tensor native::t(const Tensor& self) {
  TG_THROW(NotImplementedError, "[t] kernel not written yet");
}
Tensor native::permute(const Tensor& self, IntArrayRef dims) {
  TG_THROW(NotImplementedError, "[permute] kernel not written yet");
}
Tensor native::select(const Tensor& self, int64_t dim, int64_t index) {
  TG_THROW(NotImplementedError, "[select] kernel not written yet");
}
Tensor native::slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  TG_THROW(NotImplementedError, "[slice] kernel not written yet");
}
Tensor native::narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  TG_THROW(NotImplementedError, "[narrow] kernel not written yet");
}
Tensor native::expand(const Tensor& self, IntArrayRef size, bool implicit) {
  TG_THROW(NotImplementedError, "[expand] kernel not written yet");
}
Tensor native::expand_as(const Tensor& self, const Tensor& other) {
  TG_THROW(NotImplementedError, "[expand_as] kernel not written yet");
}
Tensor native::squeeze(const Tensor& self) {
  TG_THROW(NotImplementedError, "[squeeze] kernel not written yet");
}
Tensor native::squeeze_dim(const Tensor& self, int64_t dim) {
  TG_THROW(NotImplementedError, "[squeeze_dim] kernel not written yet");
}
Tensor native::unsqueeze(const Tensor& self, int64_t dim) {
  TG_THROW(NotImplementedError, "[unsqueeze] kernel not written yet");
}
Tensor native::flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  TG_THROW(NotImplementedError, "[flatten] kernel not written yet");
}
Tensor native::contiguous(const Tensor& self, MemoryFormat memory_format) {
  TG_THROW(NotImplementedError, "[contiguous] kernel not written yet");
}
TensorMeta meta::mm_out(const Tensor& self, const Tensor& mat2) {
  TG_THROW(NotImplementedError, "[mm_out] kernel not written yet");
}
TensorMeta meta::bmm_out(const Tensor& self, const Tensor& mat2) {
  TG_THROW(NotImplementedError, "[bmm_out] kernel not written yet");
}
TensorMeta meta::addmm_out(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  TG_THROW(NotImplementedError, "[addmm_out] kernel not written yet");
}
TensorMeta meta::add_out(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  TG_THROW(NotImplementedError, "[add_out] kernel not written yet");
}
TensorMeta meta::sub_out(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  TG_THROW(NotImplementedError, "[sub_out] kernel not written yet");
}
TensorMeta meta::mul_out(const Tensor& self, const Tensor& other) {
  TG_THROW(NotImplementedError, "[mul_out] kernel not written yet");
}
TensorMeta meta::div_out(const Tensor& self, const Tensor& other) {
  TG_THROW(NotImplementedError, "[div_out] kernel not written yet");
}
TensorMeta meta::pow_Tensor_Tensor_out(const Tensor& self, const Tensor& exponent) {
  TG_THROW(NotImplementedError, "[pow_Tensor_Tensor_out] kernel not written yet");
}
TensorMeta meta::neg_out(const Tensor& self) {
  TG_THROW(NotImplementedError, "[neg_out] kernel not written yet");
}
TensorMeta meta::abs_out(const Tensor& self) {
  TG_THROW(NotImplementedError, "[abs_out] kernel not written yet");
}
TensorMeta meta::exp_out(const Tensor& self) {
  TG_THROW(NotImplementedError, "[exp_out] kernel not written yet");
}
TensorMeta meta::log_out(const Tensor& self) {
  TG_THROW(NotImplementedError, "[log_out] kernel not written yet");
}
TensorMeta meta::sqrt_out(const Tensor& self) {
  TG_THROW(NotImplementedError, "[sqrt_out] kernel not written yet");
}
TensorMeta meta::relu_out(const Tensor& self) {
  TG_THROW(NotImplementedError, "[relu_out] kernel not written yet");
}
TensorMeta meta::sigmoid_out(const Tensor& self) {
  TG_THROW(NotImplementedError, "[sigmoid_out] kernel not written yet");
}
TensorMeta meta::tanh_out(const Tensor& self) {
  TG_THROW(NotImplementedError, "[tanh_out] kernel not written yet");
}
TensorMeta meta::clamp_out(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  TG_THROW(NotImplementedError, "[clamp_out] kernel not written yet");
}
TensorMeta meta::where_self_out(const Tensor& condition, const Tensor& self, const Tensor& other) {
  TG_THROW(NotImplementedError, "[where_self_out] kernel not written yet");
}
TensorMeta meta::eq_Tensor_out(const Tensor& self, const Tensor& other) {
  TG_THROW(NotImplementedError, "[eq_Tensor_out] kernel not written yet");
}
TensorMeta meta::ne_Tensor_out(const Tensor& self, const Tensor& other) {
  TG_THROW(NotImplementedError, "[ne_Tensor_out] kernel not written yet");
}
TensorMeta meta::lt_Tensor_out(const Tensor& self, const Tensor& other) {
  TG_THROW(NotImplementedError, "[lt_Tensor_out] kernel not written yet");
}
TensorMeta meta::le_Tensor_out(const Tensor& self, const Tensor& other) {
  TG_THROW(NotImplementedError, "[le_Tensor_out] kernel not written yet");
}
TensorMeta meta::gt_Tensor_out(const Tensor& self, const Tensor& other) {
  TG_THROW(NotImplementedError, "[gt_Tensor_out] kernel not written yet");
}
TensorMeta meta::ge_Tensor_out(const Tensor& self, const Tensor& other) {
  TG_THROW(NotImplementedError, "[ge_Tensor_out] kernel not written yet");
}
TensorMeta meta::sum_IntList_out(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  TG_THROW(NotImplementedError, "[sum_IntList_out] kernel not written yet");
}
TensorMeta meta::mean_out(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  TG_THROW(NotImplementedError, "[mean_out] kernel not written yet");
}
TensorMeta meta::amax_out(const Tensor& self, IntArrayRef dim, bool keepdim) {
  TG_THROW(NotImplementedError, "[amax_out] kernel not written yet");
}
TensorMeta meta::amin_out(const Tensor& self, IntArrayRef dim, bool keepdim) {
  TG_THROW(NotImplementedError, "[amin_out] kernel not written yet");
}
std::array<TensorMeta, 2> meta::max_dim_max(const Tensor& self, int64_t dim, bool keepdim) {
  TG_THROW(NotImplementedError, "[max_dim_max] kernel not written yet");
}
TensorMeta meta::argmax_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  TG_THROW(NotImplementedError, "[argmax_out] kernel not written yet");
}
}  // namespace tg
