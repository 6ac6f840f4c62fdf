// CPU kernels of the factory family (schemas/factory.yaml): empty, fill_ and arange.
#include <cmath>
#include <limits>
#include <type_traits>

#include "NativeFunctions.h"
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
  TG_CHECK_NOT_IMPLEMENTED(!pin_memory.value_or(false), "[empty] pinned memory is not supported yet");
  return make_empty_tensor(size, dtype.value_or(default_dtype()), Device(kCPU));
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
