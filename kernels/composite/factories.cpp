// Factories built on tg::empty: each allocates through the dispatcher (so the backend comes
// from `device`) and fills the result with another operator (fill_, arange_out, uniform_,
// normal_). A dtype left unset follows PyTorch: the default dtype for floating values, int64
// for integers, bool for bools; a device left unset is the CPU, or self's for *_like.
#include "NativeFunctions.h"
#include "core/pinned_memory.h"
#include "tensorgen/ops.h"

namespace tg::native {

namespace {

// The checks every factory makes on its options: tensorgen has only strided tensors, and
// pinned CPU memory needs a CUDA device (checked here so that the error names this factory;
// tg::empty's CPU kernel allocates the pinned memory, its CUDA kernel refuses pin_memory).
void check_factory_options(const char* op, std::optional<Layout> layout, std::optional<bool> pin_memory,
                           Device target) {
  TG_CHECK_NOT_IMPLEMENTED(layout.value_or(kStrided) == kStrided, "[", op, "] only the strided layout is "
                           "supported, got layout ", *layout);
  if (pin_memory.value_or(false) && target.is_cpu()) (void)pinned_memory_allocator(op);
}

void check_sizes(const char* op, IntArrayRef size) {
  for (int64_t s : size) TG_CHECK_VALUE(s >= 0, "[", op, "] sizes must be non-negative, got ", size);
}

// The dtype PyTorch gives a tensor made from `value` when no dtype is asked for.
ScalarType dtype_of_value(const Scalar& value) {
  if (value.is_boolean()) return kBool;
  if (value.is_integral(/*include_bool=*/false)) return kLong;
  return default_dtype();
}

// A new tensor of `size` for a factory, after the checks every factory makes.
Tensor new_tensor(const char* op, IntArrayRef size, ScalarType dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory) {
  check_factory_options(op, layout, pin_memory, device.value_or(Device(kCPU)));
  check_sizes(op, size);
  return tg::empty(size, dtype, layout, device, pin_memory, std::nullopt);
}

// A new tensor shaped like `self` for a *_like factory; dtype and device default to self's.
Tensor new_tensor_like(const char* op, const Tensor& self, std::optional<ScalarType> dtype,
                       std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory,
                       std::optional<MemoryFormat> memory_format) {
  check_factory_options(op, layout, pin_memory, device.value_or(self.device()));
  return tg::empty_like(self, dtype, layout, device, pin_memory, memory_format);
}

// A factory's result after its fill: nothing else has seen its storage, so its version goes
// back to 0 (the fill_ that wrote it bumped it), as a fresh tensor's is in LibTorch.
Tensor fresh(Tensor result) {
  result.unsafeGetTensorImpl()->storage()->reset_version();
  return result;
}

}  // namespace

Tensor empty_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> /*memory_format*/) {
  // Every memory format gives a contiguous tensor: it is the only dense layout tensorgen has,
  // and what preserve_format gives for any contiguous self.
  check_factory_options("empty_like", layout, pin_memory, device.value_or(self.device()));
  return tg::empty(self.sizes(), dtype.value_or(self.scalar_type()), layout, device.value_or(self.device()),
                   pin_memory, MemoryFormat::Contiguous);
}

Tensor zeros(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
             std::optional<Device> device, std::optional<bool> pin_memory) {
  Tensor result = new_tensor("zeros", size, dtype.value_or(default_dtype()), layout, device, pin_memory);
  result.zero_();
  return fresh(result);
}

Tensor zeros_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  Tensor result = new_tensor_like("zeros_like", self, dtype, layout, device, pin_memory, memory_format);
  result.zero_();
  return fresh(result);
}

Tensor ones(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
            std::optional<Device> device, std::optional<bool> pin_memory) {
  Tensor result = new_tensor("ones", size, dtype.value_or(default_dtype()), layout, device, pin_memory);
  result.fill_(1);
  return fresh(result);
}

Tensor ones_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  Tensor result = new_tensor_like("ones_like", self, dtype, layout, device, pin_memory, memory_format);
  result.fill_(1);
  return fresh(result);
}

Tensor full(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype, std::optional<Layout> layout,
            std::optional<Device> device, std::optional<bool> pin_memory) {
  Tensor result = new_tensor("full", size, dtype.value_or(dtype_of_value(fill_value)), layout, device, pin_memory);
  result.fill_(fill_value);
  return fresh(result);
}

Tensor full_like(const Tensor& self, const Scalar& fill_value, std::optional<ScalarType> dtype,
                 std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  Tensor result = new_tensor_like("full_like", self, dtype, layout, device, pin_memory, memory_format);
  result.fill_(fill_value);
  return fresh(result);
}

Tensor arange(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Layout> layout,
              std::optional<Device> device, std::optional<bool> pin_memory) {
  return arange_start_step(/*start=*/0, end, /*step=*/1, dtype, layout, device, pin_memory);
}

Tensor arange_start(const Scalar& start, const Scalar& end, std::optional<ScalarType> dtype,
                    std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  return arange_start_step(start, end, /*step=*/1, dtype, layout, device, pin_memory);
}

Tensor arange_start_step(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype,
                         std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  // int64 when every bound is integral (bools count), else the default floating dtype.
  const bool integral = start.is_integral(true) && end.is_integral(true) && step.is_integral(true);
  const ScalarType result_dtype = dtype.value_or(integral ? kLong : default_dtype());
  // arange_out sizes the result from the bounds, as PyTorch's arange does.
  const int64_t no_elements[] = {0};
  Tensor result = new_tensor("arange", no_elements, result_dtype, layout, device, pin_memory);
  tg::arange_out(result, start, end, step);
  return fresh(result);
}

Tensor rand(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
            std::optional<Device> device, std::optional<bool> pin_memory) {
  Tensor result = new_tensor("rand", size, dtype.value_or(default_dtype()), layout, device, pin_memory);
  result.uniform_(0, 1);
  return fresh(result);
}

Tensor rand_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  Tensor result = new_tensor_like("rand_like", self, dtype, layout, device, pin_memory, memory_format);
  result.uniform_(0, 1);
  return fresh(result);
}

Tensor randn(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> layout,
             std::optional<Device> device, std::optional<bool> pin_memory) {
  Tensor result = new_tensor("randn", size, dtype.value_or(default_dtype()), layout, device, pin_memory);
  result.normal_(0, 1);
  return fresh(result);
}

Tensor randn_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  Tensor result = new_tensor_like("randn_like", self, dtype, layout, device, pin_memory, memory_format);
  result.normal_(0, 1);
  return fresh(result);
}

Tensor zero_(const Tensor& self) {
  self.fill_(0);
  return self;
}

}  // namespace tg::native
