// CPU kernels of the factory family (schemas/factory.yaml): empty, fill_ and arange.
#include <cmath>
#include <limits>
#include <type_traits>

#include "NativeFunctions.h"
#include "cpu/copy.h"
#include "cpu/loops.h"
#include "dtype_dispatch.h"

namespace tg {

namespace {

// Whether `value` converts to T without overflow, as PyTorch's fill_ checks (c10's
// checked_convert): an unsigned type also takes negative values of its width (-1 -> 255).
template <typename T>
bool fits_without_overflow(const Scalar& value) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, double>) {
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    const double max = static_cast<double>(std::numeric_limits<T>::max());
    const double lowest = std::is_unsigned_v<T> ? -max : static_cast<double>(std::numeric_limits<T>::lowest());
    if (value.is_floating_point()) {
      const double v = value.toDouble();
      return v >= lowest && v <= max;  // false for nan
    }
    const int64_t v = value.toLong();
    return static_cast<double>(v) >= lowest && static_cast<double>(v) <= max;
  } else {
    const double v = value.toDouble();
    // float16's largest finite value; bfloat16 has float's range.
    const double limit = std::is_same_v<T, Half> ? 65504.0 : static_cast<double>(std::numeric_limits<float>::max());
    return !std::isfinite(v) || std::fabs(v) <= limit;
  }
}

}  // namespace

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
    using acc_t = std::conditional_t<std::is_integral_v<scalar_t>, int64_t, double>;
    TG_CHECK_VALUE(std::isfinite(start.toDouble()) && std::isfinite(end.toDouble()), "[arange] unsupported range: ",
                   start, " -> ", end);
    if constexpr (std::is_integral_v<scalar_t>) {
      constexpr double kLimit = 9.2e18;  // below 2^63: the bounds must fit in int64
      TG_CHECK_VALUE(std::fabs(start.toDouble()) < kLimit && std::fabs(end.toDouble()) < kLimit &&
                         std::fabs(step.toDouble()) < kLimit,
                     "[arange] the range ", start, " -> ", end, " with step ", step, " does not fit in int64");
    }
    const acc_t xstart = start.to<acc_t>();
    const acc_t xend = end.to<acc_t>();
    const acc_t xstep = step.to<acc_t>();
    TG_CHECK_VALUE(xstep > 0 || xstep < 0, "[arange] step must be nonzero");
    TG_CHECK_VALUE((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart),
                   "[arange] upper bound and lower bound inconsistent with step sign: start ", start, ", end ", end,
                   ", step ", step);
    double size_d;
    if constexpr (std::is_same_v<scalar_t, int64_t>) {
      const int64_t sign = (xstep > 0) - (xstep < 0);
      size_d = static_cast<double>((xend - xstart + xstep - sign) / xstep);
    } else {
      size_d = std::ceil((end.toDouble() - start.toDouble()) / step.toDouble());
    }
    TG_CHECK_VALUE(size_d >= 0 && size_d <= static_cast<double>(std::numeric_limits<int64_t>::max()),
                   "[arange] invalid size ", size_d, ", possible overflow?");
    const int64_t size = static_cast<int64_t>(size_d);
    resize_output(out, {size});
    Tensor target = out.is_contiguous() ? out : make_empty_tensor(out.sizes(), out.scalar_type(), out.device());
    scalar_t* data = target.data_ptr<scalar_t>();
    for (int64_t i = 0; i < size; ++i) data[i] = cpu::convert<scalar_t>(xstart + static_cast<acc_t>(i) * xstep);
    if (!target.is_same(out)) cpu::copy_into(out, target);
  });
  return out;
}

}  // namespace tg
