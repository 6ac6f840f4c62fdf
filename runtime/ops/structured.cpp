#include "ops/structured.h"
#include "ops/device_check.h"

#include "core/checked_math.h"
#include "core/pinned_memory.h"
#include "tensorgen/ops.h"

namespace tg {

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_type(from) && is_integral_type(to, /*include_bool=*/false)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

namespace {

// A bigger storage for an output. A pinned one stays pinned, as PyTorch's resize_ allocates
// from the storage's allocator; every other one comes from the device's allocator, which a
// recording thread may have overridden (core/allocator_override.h).
Storage grown_storage(const StorageImpl& old, size_t nbytes, Device device) {
  Allocator* allocator = old.allocator();
  if (!device.is_cpu() || !is_pinned_memory_allocator(allocator)) return make_storage(nbytes, device);
  return make_intrusive<StorageImpl>(allocator->allocate(nbytes), nbytes, allocator);
}

}  // namespace

void resize_output(const Tensor& t, IntArrayRef sizes) {
  TensorImpl* impl = t.unsafeGetTensorImpl();
  if (impl->sizes() == sizes) return;  // a correctly sized out keeps its strides, as in PyTorch
  impl->set_sizes_contiguous(sizes);
  impl->set_storage_offset(0);
  const size_t needed = checked_nbytes("resize", sizes, impl->itemsize());
  if (impl->storage()->nbytes() < needed) impl->set_storage(grown_storage(*impl->storage(), needed, impl->device()));
}

void write_out(std::string_view op, const Tensor& result, const Tensor& out) {
  TG_CHECK_TYPE(can_cast(result.scalar_type(), out.scalar_type()), "[", op, "] result type ", result.scalar_type(),
                " can't be cast to the desired output type ", out.scalar_type());
  resize_output(out, result.sizes());
  out.copy_(result);
}

namespace structured {

Tensor allocate_output(const TensorMeta& meta, Device device) {
  return make_empty_tensor(meta.sizes, meta.dtype, device);
}

Tensor prepare_inplace(std::string_view op, const Tensor& self, const TensorMeta& meta) {
  TG_CHECK_VALUE(self.sizes() == meta.sizes.ref(), "[", op, "] output with shape ", self.sizes(),
                 " doesn't match the broadcast shape ", meta.sizes);
  TG_CHECK_TYPE(can_cast(meta.dtype, self.scalar_type()), "[", op, "] result type ", meta.dtype,
                " can't be cast to the desired output type ", self.scalar_type());
  if (self.is_contiguous() && self.scalar_type() == meta.dtype) return self;
  return allocate_output(meta, self.device());
}

Tensor prepare_out(std::string_view op, const Tensor& out, const TensorMeta& meta, Device device) {
  TG_CHECK_VALUE(out.defined(), "[", op, "] expected a defined out tensor");
  TG_CHECK(out.device() == device, "[", op, "] expected out on ", device, ", got out on ", out.device());
  TG_CHECK_TYPE(can_cast(meta.dtype, out.scalar_type()), "[", op, "] result type ", meta.dtype,
                " can't be cast to the desired output type ", out.scalar_type());
  TG_CHECK_TYPE(!meta.exact_out_dtype || out.scalar_type() == meta.dtype, "[", op,
                "] Expected out tensor to have dtype ", meta.dtype, ", but got ", out.scalar_type(), " instead");
  // An out of the right size keeps its strides (a transposed out stays transposed); any other
  // out is resized, as PyTorch does.
  if (out.sizes() != meta.sizes.ref()) resize_output(out, meta.sizes);
  if (out.is_contiguous() && out.scalar_type() == meta.dtype) return out;
  return allocate_output(meta, device);
}

void finish_output(const Tensor& user_output, const Tensor& written) {
  if (!user_output.is_same(written)) user_output.copy_(written);
}

}  // namespace structured

namespace {

bool is_cpu_scalar(const Tensor& t) { return t.is_cpu() && t.dim() == 0; }

[[noreturn]] void raise_two_devices(std::string_view op, Device device, Device other) {
  TG_THROW(Error, "[", op, "] expected all tensors to be on the same device, but found at least two devices, ",
           device, " and ", other);
}

// The first defined tensor that is not a CPU scalar (it fixes the device), or end. The
// tensors before it are all undefined or CPU scalars, which join any device.
const Tensor* const* first_on_a_device(std::initializer_list<const Tensor*> tensors) {
  const Tensor* const* it = tensors.begin();
  while (it != tensors.end() && (*it == nullptr || !(*it)->defined() || is_cpu_scalar(**it))) ++it;
  return it;
}

// Checks the tensors after `first` against its device.
void check_rest_on(std::string_view op, const Tensor* const* first, const Tensor* const* end) {
  const Device device = (*first)->device();
  for (const Tensor* const* it = first + 1; it != end; ++it) {
    const Tensor* t = *it;
    if (t == nullptr || !t->defined() || t->device() == device || is_cpu_scalar(*t)) continue;
    raise_two_devices(op, device, t->device());
  }
}

}  // namespace

void check_same_device(std::string_view op, std::initializer_list<const Tensor*> tensors) {
  const Tensor* const* first = first_on_a_device(tensors);
  if (first != tensors.end()) check_rest_on(op, first, tensors.end());
}

Device checked_output_device(std::string_view op, std::initializer_list<const Tensor*> tensors,
                             std::size_t num_inputs) {
  // The usual call: at least one input, every tensor defined and on one device, which is then
  // the output's (with no inputs, the outputs go to the CPU, as below).
  const auto impl_of = [](const Tensor* t) { return t != nullptr ? t->unsafeGetTensorImpl() : nullptr; };
  if (const TensorImpl* first = num_inputs > 0 && tensors.size() > 0 ? impl_of(tensors.begin()[0]) : nullptr) {
    const Device device = first->device();
    bool same = true;
    for (const Tensor* const* it = tensors.begin() + 1; it != tensors.end(); ++it) {
      const TensorImpl* t = impl_of(*it);
      same = same && t != nullptr && t->device() == device;
    }
    if (same) return device;
  }
  const Tensor* const* first = first_on_a_device(tensors);
  if (first == tensors.end()) return Device(DeviceType::CPU);
  check_rest_on(op, first, tensors.end());
  // An out first on a device means every input is a CPU scalar: outputs go to the CPU.
  return first < tensors.begin() + num_inputs ? (*first)->device() : Device(DeviceType::CPU);
}

Device common_device(std::initializer_list<const Tensor*> tensors) {
  const Tensor* cpu_scalar = nullptr;
  for (const Tensor* t : tensors) {
    if (t == nullptr || !t->defined()) continue;
    if (t->is_cpu() && t->dim() == 0) {
      if (cpu_scalar == nullptr) cpu_scalar = t;
      continue;
    }
    return t->device();
  }
  return Device(DeviceType::CPU);
}

}  // namespace tg
