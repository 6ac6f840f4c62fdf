// The native:: CUDA kernels of the factory family (schemas/factory.yaml): empty, fill_,
// arange, uniform_ and normal_. Arguments are checked by the same rules as on the CPU
// (factory_rules.h), so both backends raise the same errors.
#include "NativeFunctions.h"
#include "cuda/cuda_generator.h"
#include "cuda/cuda_guard.h"
#include "cuda/elementwise_host.h"
#include "cuda/factory_ops.h"
#include "cuda/pointwise_ops.h"
#include "dtype_dispatch.h"
#include "factory_rules.h"
#include "tensorgen/ops.h"

namespace tg {

namespace {

// `out` itself when it is contiguous, else a contiguous tensor to write and copy back.
Tensor contiguous_target(const Tensor& out) {
  return out.is_contiguous() ? out : make_empty_tensor(out.sizes(), out.scalar_type(), out.device());
}

void finish_target(const Tensor& out, const Tensor& target) {
  if (!target.is_same(out)) out.copy_(target);
}

// Random fills take floating dtypes only; checked before any state is drawn.
void check_floating(const Tensor& self, const char* op) { TG_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [] {}); }

}  // namespace

Tensor native::empty_cuda(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Layout> /*layout*/,
                          std::optional<Device> device, std::optional<bool> pin_memory,
                          std::optional<MemoryFormat> /*memory_format*/) {
  for (int64_t s : size) {
    TG_CHECK_VALUE(s >= 0, "[empty] trying to create tensor with negative dimension ", s, ": ", size);
  }
  TG_CHECK(!device.has_value() || device->is_cuda(), "[empty] the CUDA kernel cannot make a tensor on ", *device);
  TG_CHECK(!pin_memory.value_or(false), "[empty] only dense CPU tensors can be pinned, but pin_memory=true was ",
           "given for a tensor on ", device.value_or(Device(kCUDA)), "; leave pin_memory unset for device memory");
  const cuda::DeviceIndex index = cuda::resolve_device(device.has_value() ? device->index() : -1, "empty");
  const cuda::CUDAGuard guard(index);
  return make_empty_tensor(size, dtype.value_or(default_dtype()), Device(kCUDA, index));
}

Tensor native::fill_cuda_(const Tensor& self, const Scalar& value) {
  TG_DISPATCH_ALL_TYPES(self.scalar_type(), "fill_", [&] {
    TG_CHECK_VALUE(fits_without_overflow<scalar_t>(value), "[fill_] value ", value, " cannot be converted to type ",
                   self.scalar_type(), " without overflow");
  });
  const cuda::ElementwiseLaunch launch("fill_", self, self.scalar_type(), {});
  cuda::launch_fill(self.scalar_type(), launch.args(), cuda::scalar_value(value));
  return self;
}

Tensor native::arange_out_cuda(const Scalar& start, const Scalar& end, const Scalar& step, const Tensor& out) {
  TG_DISPATCH_NUMERIC_TYPES(out.scalar_type(), "arange", [&] {
    const ArangeRange<scalar_t> range = arange_range<scalar_t>(start, end, step);
    resize_output(out, {range.size});  // also reshapes an out of the right numel but another shape
    const Tensor target = contiguous_target(out);
    const auto value = [](auto v) {
      return std::is_integral_v<decltype(v)> ? cuda::ScalarValue::integral(static_cast<int64_t>(v))
                                             : cuda::ScalarValue::floating(static_cast<double>(v));
    };
    cuda::launch_arange(out.scalar_type(), target.data_ptr(), range.size, value(range.start), value(range.step));
    finish_target(out, target);
  });
  return out;
}

Tensor native::uniform_cuda_(const Tensor& self, double from, double to) {
  TG_CHECK_VALUE(from <= to, "[uniform_] expects to return a [from, to) range, but found from=", from, " > to=", to);
  check_floating(self, "uniform_");
  const Tensor target = contiguous_target(self);
  const cuda::PhiloxState state = cuda::philox_state(self.device().index());
  cuda::launch_uniform(self.scalar_type(), target.data_ptr(), target.numel(), state, from, to);
  finish_target(self, target);
  return self;
}

Tensor native::normal_cuda_(const Tensor& self, double mean, double std) {
  TG_CHECK_VALUE(std >= 0.0, "[normal_] expects std >= 0.0, but found std ", std);
  check_floating(self, "normal_");
  const Tensor target = contiguous_target(self);
  const cuda::PhiloxState state = cuda::philox_state(self.device().index());
  cuda::launch_normal(self.scalar_type(), target.data_ptr(), target.numel(), state, mean, std);
  finish_target(self, target);
  return self;
}

}  // namespace tg
