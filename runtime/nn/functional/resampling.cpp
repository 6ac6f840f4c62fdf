#include "nn/functional/resampling.h"

#include <cmath>
#include <string>

namespace tg::nn::functional {

namespace {

const char* pad_mode_name(const PadMode& mode) {
  if (std::holds_alternative<enumtype::kReflect>(mode)) return "reflect";
  if (std::holds_alternative<enumtype::kReplicate>(mode)) return "replicate";
  if (std::holds_alternative<enumtype::kCircular>(mode)) return "circular";
  return "constant";
}

const char* interpolate_mode_name(const InterpolateMode& mode) {
  if (std::holds_alternative<enumtype::kLinear>(mode)) return "linear";
  if (std::holds_alternative<enumtype::kBilinear>(mode)) return "bilinear";
  if (std::holds_alternative<enumtype::kTrilinear>(mode)) return "trilinear";
  return "nearest";
}

}  // namespace

Tensor pad(const Tensor& input, const PadFuncOptions& options) {
  const bool constant = std::holds_alternative<enumtype::kConstant>(options.mode());
  return tg::pad(input, options.pad(), pad_mode_name(options.mode()),
                 constant ? std::optional<double>(options.value()) : std::nullopt);
}

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options) {
  const char* mode = interpolate_mode_name(options.mode());
  TG_CHECK_VALUE(input.dim() >= 3 && input.dim() <= 5, "[nn::functional::interpolate] expected a 3-D, 4-D or 5-D ",
                 "input [N, C, *spatial], got ", input.dim(), "-D input of shape ", input.sizes());
  const size_t spatial = static_cast<size_t>(input.dim() - 2);
  TG_CHECK_VALUE(options.size().has_value() != options.scale_factor().has_value(),
                 "[nn::functional::interpolate] expected exactly one of size and scale_factor, got ",
                 options.size().has_value() ? "both" : "neither");
  const bool nearest = std::holds_alternative<enumtype::kNearest>(options.mode());
  TG_CHECK_VALUE(!(nearest && options.align_corners().has_value()), "[nn::functional::interpolate] align_corners ",
                 "option can only be set with the interpolating modes: linear | bilinear | trilinear");
  const size_t expected_spatial = std::holds_alternative<enumtype::kLinear>(options.mode())     ? 1
                                  : std::holds_alternative<enumtype::kBilinear>(options.mode()) ? 2
                                  : std::holds_alternative<enumtype::kTrilinear>(options.mode()) ? 3
                                                                                                 : spatial;
  TG_CHECK_VALUE(expected_spatial == spatial, "[nn::functional::interpolate] mode ", mode, " expects a ",
                 expected_spatial + 2, "-D input, got ", input.dim(), "-D input of shape ", input.sizes());

  // One value per spatial dim: a single value stands for all, as LibTorch's.
  auto per_dim = [&](const auto& values, const char* name) {
    using Value = typename std::decay_t<decltype(values)>::value_type;
    TG_CHECK_VALUE(values.size() == 1 || values.size() == spatial, "[nn::functional::interpolate] expected ", name,
                   " to have 1 or ", spatial, " values, got ", values.size());
    return values.size() == 1 ? std::vector<Value>(spatial, values[0]) : values;
  };
  std::vector<int64_t> output_size;
  std::vector<std::optional<double>> scales(spatial);
  if (options.size()) {
    output_size = per_dim(*options.size(), "size");
  } else {
    const std::vector<double> factors = per_dim(*options.scale_factor(), "scale_factor");
    for (size_t d = 0; d < spatial; ++d) {
      TG_CHECK_VALUE(factors[d] > 0, "[nn::functional::interpolate] expected scale factors > 0, got ", factors[d]);
      output_size.push_back(static_cast<int64_t>(
          std::floor(static_cast<double>(input.size(static_cast<int64_t>(d) + 2)) * factors[d])));
      scales[d] = factors[d];
    }
  }
  const bool align_corners = options.align_corners().value_or(false);
  switch (spatial) {
    case 1:
      return nearest ? tg::upsample_nearest1d(input, output_size, scales[0])
                     : tg::upsample_linear1d(input, output_size, align_corners, scales[0]);
    case 2:
      return nearest ? tg::upsample_nearest2d(input, output_size, scales[0], scales[1])
                     : tg::upsample_bilinear2d(input, output_size, align_corners, scales[0], scales[1]);
    default:
      return nearest ? tg::upsample_nearest3d(input, output_size, scales[0], scales[1], scales[2])
                     : tg::upsample_trilinear3d(input, output_size, align_corners, scales[0], scales[1], scales[2]);
  }
}

}  // namespace tg::nn::functional
