// Meta functions of the normalization layers with kernels (schemas/nn.yaml): native_layer_norm.
#include "NativeFunctions.h"
#include "nn_rules.h"

namespace tg {

// out0 has input's shape; mean (out1) and rstd (out2) the batch dims then a 1 per
// normalized dim; all three input's dtype.
std::array<TensorMeta, 3> meta::native_layer_norm_out(const Tensor& input, IntArrayRef normalized_shape,
                                                      const std::optional<Tensor>& weight,
                                                      const std::optional<Tensor>& bias, double /*eps*/) {
  const LayerNormShape shape = check_layer_norm(input, normalized_shape, weight, bias);
  const ScalarType dtype = input.scalar_type();
  return {TensorMeta{DimVector(input.sizes()), dtype}, TensorMeta{shape.stats, dtype}, TensorMeta{shape.stats, dtype}};
}

}  // namespace tg
