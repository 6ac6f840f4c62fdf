// CPU kernels of the factory family (schemas/factory.yaml): empty, fill_ and arange.
#include <cmath>
#include <limits>
#include <type_traits>

#include "NativeFunctions.h"
#include "core/checked_math.h"
#include "core/pinned_memory.h"
#include "core/scalar_type_check.h"
#include "cpu/copy.h"
#include "cpu/loops.h"
#include "dtype_dispatch.h"
#include "factory_rules.h"

namespace tg {

Tensor native::empty_cpu(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> /*layout*/,
                         std::optional<Device> device, std::optional<bool> pin_memory,
                         std::optional<MemoryFormat> /*memory_format*/) {
  for (int64_t s : size) {
    TG_CHECK_VALUE(s >= 0, "[empty] trying to create tensor with negative dimension ", s, ": ", size);
  }
  TG_CHECK(!device.has_value() || device->is_cpu(), "[empty] the CPU kernel cannot make a tensor on ", *device);
  const ScalarType result_dtype = dtype.value_or(default_dtype());
  if (!pin_memory.value_or(false)) return make_empty_tensor(size, result_dtype, Device(kCPU));
  // Pinned memory comes from the CUDA runtime's caching host allocator (core/pinned_memory.h);
  // the storage keeps that allocator, so a pinned tensor resized by an out= op stays pinned.
  check_scalar_type("empty", result_dtype);
  Allocator* allocator = pinned_memory_allocator("empty");
  const size_t nbytes = checked_nbytes("empty", size, element_size(result_dtype));
  auto storage = make_intrusive<StorageImpl>(allocator->allocate(nbytes), nbytes, allocator);
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), result_dtype, size));
}

Tensor native::fill_cpu_(const Tensor& self, const Scalar& value) {
  cpu::LaunchesOnly launches_only;  // see Note [Launch replay]
  TG_DISPATCH_ALL_TYPES(self.scalar_type(), "fill_", [&] {
    TG_CHECK_VALUE(fits_without_overflow<scalar_t>(value), "[fill_] value ", value, " cannot be converted to type ",
                   self.scalar_type(), " without overflow");
    const scalar_t v = value.to<scalar_t>();
    cpu::elementwise_kernel(self, [v]() { return v; });
  });
  return self;
}

// PyTorch's arange: size = ceil((end - start) / step), element i = start + i * step,
// computed in int64 for integral outputs and in double for floating ones.
Tensor native::arange_out_cpu(const Scalar& start, const Scalar& end, const Scalar& step, const Tensor& out) {
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "arange", [&] {
    using acc_t = typename ArangeRange<scalar_t>::acc_t;
    const ArangeRange<scalar_t> range = arange_range<scalar_t>(start, end, step);
    const int64_t size = range.size;
    const acc_t xstart = range.start;
    const acc_t xstep = range.step;
    resize_output(out, {size});
    Tensor target = out.is_contiguous() ? out : make_empty_tensor(out.sizes(), out.scalar_type(), out.device());
    scalar_t* data = target.data_ptr<scalar_t>();
    for (int64_t i = 0; i < size; ++i) data[i] = cpu::convert<scalar_t>(xstart + static_cast<acc_t>(i) * xstep);
    if (!target.is_same(out)) cpu::copy_into(out, target);
  });
  return out;
}

}  // namespace tg
