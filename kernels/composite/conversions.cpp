// Conversions between dtypes and devices, and copies. Each new tensor comes from tg::empty
// and is filled by copy_, whose kernel handles the cast and the transfer between devices.
// `to(...)` returns self itself when nothing would change and no copy is asked for, as
// PyTorch's to() does; every other case is a _to_copy. pin_memory() copies into pinned memory.
#include "NativeFunctions.h"
#include "core/pinned_memory.h"
#include "tensorgen/ops.h"

namespace tg::native {

namespace {

// A device asked for without an index ("cuda") matches any device of its type.
bool same_device(Device current, Device requested) {
  return current.type() == requested.type() && (!requested.has_index() || current.index() == requested.index());
}

// Whether to(dtype, layout, device, copy, memory_format) can return self (PyTorch's
// to_will_alias).
bool to_will_alias(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                   std::optional<Device> device, bool copy, std::optional<MemoryFormat> memory_format) {
  if (copy) return false;
  if (dtype && *dtype != self.scalar_type()) return false;
  if (layout && *layout != self.layout()) return false;
  if (device && !same_device(self.device(), *device)) return false;
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  return format == MemoryFormat::Preserve || self.is_contiguous();
}

Tensor to_impl(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
               std::optional<Device> device, std::optional<bool> pin_memory, bool non_blocking, bool copy,
               std::optional<MemoryFormat> memory_format) {
  if (to_will_alias(self, dtype, layout, device, copy, memory_format)) return self;
  return tg::_to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format);
}

}  // namespace

Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format) {
  Tensor result = tg::empty_like(self, std::nullopt, std::nullopt, std::nullopt, std::nullopt, memory_format);
  result.copy_(self);
  return result;
}

// A non-blocking copy from a device to the host lands in pinned memory, as PyTorch's
// _to_copy does (its pin_out): into pageable memory copy_ would have to wait for it.
Tensor _to_copy(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                std::optional<Device> device, std::optional<bool> pin_memory, bool non_blocking,
                std::optional<MemoryFormat> memory_format) {
  const bool pin_out = non_blocking && !self.is_cpu() && device.has_value() && device->is_cpu();
  Tensor result = tg::empty_like(self, dtype, layout, device, pin_out ? std::optional<bool>(true) : pin_memory,
                                 memory_format);
  result.copy_(self, non_blocking);
  return result;
}

// A contiguous pinned copy (tensorgen's empty_like gives contiguous tensors too; LibTorch's
// keeps self's strides). Its derivative is the identity (schemas/factory.yaml).
Tensor _pin_memory(const Tensor& self) {
  TG_CHECK(self.is_cpu(), "[pin_memory] only dense CPU tensors can be pinned, got a tensor on ", self.device());
  (void)pinned_memory_allocator("pin_memory");  // names pin_memory in the error without a CUDA device
  Tensor result = tg::empty(self.sizes(), self.scalar_type(), kStrided, Device(kCPU), /*pin_memory=*/true,
                            MemoryFormat::Contiguous);
  result.copy_(self);
  return result;
}

Tensor pin_memory(const Tensor& self) { return self.is_pinned() ? self : tg::_pin_memory(self); }

Tensor to_dtype_layout(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                       std::optional<Device> device, std::optional<bool> pin_memory, bool non_blocking, bool copy,
                       std::optional<MemoryFormat> memory_format) {
  return to_impl(self, dtype, layout, device, pin_memory, non_blocking, copy, memory_format);
}

Tensor to_dtype(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy,
                std::optional<MemoryFormat> memory_format) {
  return to_impl(self, dtype, std::nullopt, std::nullopt, std::nullopt, non_blocking, copy, memory_format);
}

Tensor to_device(const Tensor& self, Device device, ScalarType dtype, bool non_blocking, bool copy,
                 std::optional<MemoryFormat> memory_format) {
  return to_impl(self, dtype, std::nullopt, device, std::nullopt, non_blocking, copy, memory_format);
}

Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  TG_CHECK_VALUE(memory_format != MemoryFormat::Preserve, "[contiguous] preserve memory format is unsupported by "
                 "the contiguous operator");
  if (self.is_contiguous()) return self;
  return self.clone(memory_format);
}

}  // namespace tg::native
