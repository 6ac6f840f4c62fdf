// CPU kernels of native_dropout and its backward. The mask keeps each element with
// probability 1 - p, drawn from the default generator under one lock (so tg::manual_seed
// determines the mask); kept elements are scaled by 1 / (1 - p).
#include <algorithm>

#include "NativeFunctions.h"
#include "core/generator.h"
#include "cpu/loops.h"
#include "dtype_dispatch.h"
#include "shape_utils.h"

namespace tg {

namespace {

void check_probability(double p) {
  TG_CHECK_VALUE(p >= 0.0 && p <= 1.0, "[dropout] dropout probability has to be between 0 and 1, but got ", p);
}

// A bool tensor of `sizes`, each element true with probability 1 - p.
Tensor bernoulli_mask(IntArrayRef sizes, double p, Device device) {
  Tensor mask = make_empty_tensor(sizes, kBool, device);
  bool* data = mask.data_ptr<bool>();
  const int64_t n = mask.numel();
  Generator& generator = default_generator();
  auto guard = generator.lock();
  Generator::Engine engine = generator.engine();
  for (int64_t i = 0; i < n; ++i) data[i] = engine.next_double() >= p;
  return mask;
}

// out = grad * mask * scale, broadcasting grad and mask.
void masked_scale(const Tensor& out, const Tensor& input, const Tensor& mask, double scale) {
  TG_DISPATCH_FLOATING_TYPES(out.scalar_type(), "dropout", [&] {
    using T = opmath_t<scalar_t>;
    const T factor = static_cast<T>(scale);
    cpu::elementwise_kernel(out, [factor](T x, bool keep) -> scalar_t {
      return cpu::convert<scalar_t>(keep ? x * factor : T(0));
    }, input, mask);
  });
}

}  // namespace

std::tuple<Tensor, Tensor> native::native_dropout_cpu(const Tensor& input, double p, std::optional<bool> train) {
  check_probability(p);
  TG_CHECK_TYPE(is_floating_type(input.scalar_type()), "[dropout] expected a floating input, got ",
                input.scalar_type());
  Tensor output = make_empty_tensor(input.sizes(), input.scalar_type(), input.device());
  if (!train.value_or(true)) {
    Tensor mask = make_empty_tensor(input.sizes(), kBool, input.device());
    std::fill_n(mask.data_ptr<bool>(), mask.numel(), true);
    cpu::copy_into(output, input);
    return {output, mask};
  }
  Tensor mask = bernoulli_mask(input.sizes(), p, input.device());
  // p = 1 drops everything: scale 0 rather than 1 / 0 (the formula's dropout_scale agrees).
  masked_scale(output, input, mask, p == 1.0 ? 0.0 : 1.0 / (1.0 - p));
  return {output, mask};
}

Tensor native::native_dropout_backward_cpu(const Tensor& grad_output, const Tensor& mask, double scale) {
  TG_CHECK_TYPE(mask.scalar_type() == kBool, "[native_dropout_backward] mask should be a bool tensor, got ",
                mask.scalar_type());
  const DimVector sizes = infer_broadcast_size(grad_output.sizes(), mask.sizes(), "native_dropout_backward");
  Tensor grad_input = make_empty_tensor(sizes, grad_output.scalar_type(), grad_output.device());
  masked_scale(grad_input, grad_output, mask, scale);
  return grad_input;
}

}  // namespace tg
