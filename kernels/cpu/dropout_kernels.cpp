// CPU kernels of native_dropout and its backward. The mask keeps each element with
// probability 1 - p, drawn from the default generator under one lock (so tg::manual_seed
// determines the mask); kept elements are scaled by 1 / (1 - p).
#include <algorithm>

#include "NativeFunctions.h"
#include "core/generator.h"
#include "cpu/loops.h"
#include "dtype_dispatch.h"
#include "nn_rules.h"
#include "shape_utils.h"

namespace tg {

namespace {

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
  const double scale = check_dropout(input, p);
  if (!train.value_or(true)) return dropout_eval(input);
  Tensor mask = bernoulli_mask(input.sizes(), p, input.device());
  Tensor output = make_empty_tensor(input.sizes(), input.scalar_type(), input.device());
  masked_scale(output, input, mask, scale);
  return {output, mask};
}

Tensor native::native_dropout_backward_cpu(const Tensor& grad_output, const Tensor& mask, double scale) {
  const DimVector sizes = check_dropout_backward(grad_output, mask);
  Tensor grad_input = make_empty_tensor(sizes, grad_output.scalar_type(), grad_output.device());
  masked_scale(grad_input, grad_output, mask, scale);
  return grad_input;
}

}  // namespace tg
