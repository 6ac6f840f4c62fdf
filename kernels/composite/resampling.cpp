// pad and upsample_* as decompositions (schemas/resampling.yaml): each padded or resampled dim
// is one index_select (or cat, for constant padding) along that dim, so the backward sums the
// gradient of every copy of an element into it, and every backend runs them.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/host_buffer.h"
#include "NativeFunctions.h"
#include "ops/tensor_from_values.h"
#include "tensorgen/ops.h"

namespace tg::native {

namespace {

// The source index of each of `length + left + right` positions along a dim of size `size`,
// for the non-constant modes; position j = -left .. size + right - 1.
std::vector<int64_t> padded_source(std::string_view mode, int64_t size, int64_t left, int64_t right) {
  std::vector<int64_t> source;
  source.reserve(static_cast<size_t>(std::max<int64_t>(size + left + right, 0)));
  for (int64_t j = -left; j < size + right; ++j) {
    if (mode == "replicate") {
      source.push_back(std::clamp<int64_t>(j, 0, size - 1));
    } else if (mode == "reflect") {
      // One mirror on each side: -1 -> 1, size -> size - 2 (pad < size keeps it single).
      source.push_back((size - 1) - std::abs((size - 1) - std::abs(j)));
    } else {  // circular
      source.push_back(((j % size) + size) % size);
    }
  }
  return source;
}

Tensor constant_pad_dim(const Tensor& self, int64_t dim, int64_t left, int64_t right, double value) {
  Tensor result = self;
  // Negative amounts crop first; then the fills go on either side.
  const int64_t crop_left = std::max<int64_t>(-left, 0), crop_right = std::max<int64_t>(-right, 0);
  if (crop_left > 0 || crop_right > 0) {
    result = result.narrow(dim, crop_left, result.size(dim) - crop_left - crop_right);
  }
  std::vector<Tensor> pieces;
  auto fill = [&](int64_t amount) {
    std::vector<int64_t> sizes = result.sizes().vec();
    sizes[static_cast<size_t>(dim)] = amount;
    pieces.push_back(tg::full(sizes, value, result.options()));
  };
  if (left > 0) fill(left);
  pieces.push_back(result);
  if (right > 0) fill(right);
  return pieces.size() == 1 ? result : tg::cat(pieces, dim);
}

enum class Interpolation { Nearest, Linear };

// The resampling of one spatial dim of `self` to `out` positions. `scale`, when given, is the
// user's scale factor (output / input), which sets the step between source positions.
Tensor resample_dim(const Tensor& self, int64_t dim, int64_t out, Interpolation mode, bool align_corners,
                    std::optional<double> scale) {
  const int64_t in = self.size(dim);
  const double step = scale.has_value() && *scale > 0 ? 1.0 / *scale
                                                       : static_cast<double>(in) / static_cast<double>(out);
  const auto options = TensorOptions().dtype(kLong);
  if (mode == Interpolation::Nearest) {
    // In float, as LibTorch computes it, so that positions landing on an integer agree.
    const float float_step = static_cast<float>(step);
    HostVector<int64_t> source = host_buffer<int64_t>("upsample", out);
    for (int64_t o = 0; o < out; ++o) {
      source[static_cast<size_t>(o)] =
          std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * float_step)), in - 1);
    }
    return self.index_select(dim, tg::tensor(ArrayRef<int64_t>(source.data(), source.size()), options).to(self.device()));
  }
  HostVector<int64_t> lower = host_buffer<int64_t>("upsample", out), upper = host_buffer<int64_t>("upsample", out);
  HostVector<double> weight = host_buffer<double>("upsample", out);
  for (int64_t o = 0; o < out; ++o) {
    double position;
    if (align_corners) {
      position = out > 1 ? static_cast<double>(o) * static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
    } else {
      position = std::max((static_cast<double>(o) + 0.5) * step - 0.5, 0.0);
    }
    const int64_t below = std::min(static_cast<int64_t>(std::floor(position)), in - 1);
    lower[static_cast<size_t>(o)] = below;
    upper[static_cast<size_t>(o)] = std::min(below + 1, in - 1);
    weight[static_cast<size_t>(o)] = position - static_cast<double>(below);
  }
  std::vector<int64_t> weight_shape(static_cast<size_t>(self.dim()), 1);
  weight_shape[static_cast<size_t>(dim)] = out;
  const Tensor upper_weight =
      tg::tensor(ArrayRef<double>(weight.data(), weight.size()), TensorOptions().dtype(kDouble)).to(self.device()).to(self.scalar_type()).view(weight_shape);
  const Tensor low = self.index_select(dim, tg::tensor(ArrayRef<int64_t>(lower.data(), lower.size()), options).to(self.device()));
  const Tensor high = self.index_select(dim, tg::tensor(ArrayRef<int64_t>(upper.data(), upper.size()), options).to(self.device()));
  return low + (high - low) * upper_weight;
}

Tensor upsample(const char* op, const Tensor& self, IntArrayRef output_size, Interpolation mode, bool align_corners,
                const std::vector<std::optional<double>>& scales) {
  const int64_t spatial = static_cast<int64_t>(output_size.size());
  TG_CHECK_VALUE(self.dim() == spatial + 2, "[", op, "] expected an input of shape [N, C, ", spatial,
                 " spatial dims] (", spatial + 2, " dims), got ", self.sizes());
  for (int64_t d = 0; d < spatial; ++d) {
    TG_CHECK_VALUE(output_size[static_cast<size_t>(d)] > 0, "[", op, "] expected output sizes > 0, got ", output_size);
    TG_CHECK_VALUE(self.size(d + 2) > 0, "[", op, "] expected an input with non-empty spatial dims, got ",
                   self.sizes());
  }
  // Nearest only copies elements, so any dtype goes (uint8 images); linear interpolates.
  TG_CHECK_TYPE(mode == Interpolation::Nearest || is_floating_type(self.scalar_type()), "[", op,
                "] expected a floating input, got ", self.scalar_type());
  Tensor result = self;
  for (int64_t d = 0; d < spatial; ++d) {
    result = resample_dim(result, d + 2, output_size[static_cast<size_t>(d)], mode, align_corners,
                          scales[static_cast<size_t>(d)]);
  }
  return result;
}

}  // namespace

Tensor pad(const Tensor& self, IntArrayRef pad, std::string_view mode, std::optional<double> value) {
  TG_CHECK_VALUE(pad.size() % 2 == 0, "[pad] expected an even number of padding amounts (left, right pairs), got ",
                 pad.size());
  const int64_t padded_dims = static_cast<int64_t>(pad.size()) / 2;
  TG_CHECK_VALUE(padded_dims <= self.dim(), "[pad] padding length ", pad.size(), " pads ", padded_dims,
                 " dims, but the input has only ", self.dim(), " (shape ", self.sizes(), ")");
  const bool constant = mode == "constant";
  TG_CHECK_VALUE(constant || mode == "reflect" || mode == "replicate" || mode == "circular",
                 "[pad] expected mode constant, reflect, replicate or circular, got '", std::string(mode), "'");
  TG_CHECK_VALUE(constant || !value.has_value(), "[pad] padding mode ", std::string(mode),
                 " takes no value argument, got value=", *value);
  Tensor result = self;
  bool padded = false;
  for (int64_t i = 0; i < padded_dims; ++i) {
    const int64_t dim = self.dim() - 1 - i;
    const int64_t left = pad[static_cast<size_t>(2 * i)], right = pad[static_cast<size_t>(2 * i + 1)];
    const int64_t size = result.size(dim);
    TG_CHECK_VALUE(size + left + right >= 0 && std::max<int64_t>(-left, 0) + std::max<int64_t>(-right, 0) <= size,
                   "[pad] padding (", left, ", ", right, ") of dim ", dim, " (size ", size,
                   ") would give a negative size");
    if (left == 0 && right == 0) continue;
    padded = true;
    if (constant) {
      result = constant_pad_dim(result, dim, left, right, value.value_or(0.0));
      continue;
    }
    TG_CHECK_VALUE(size > 0, "[pad] ", std::string(mode), " padding needs a non-empty dim ", dim, ", got shape ",
                   result.sizes());
    if (mode == "reflect") {
      TG_CHECK_VALUE(left < size && right < size, "[pad] reflect padding (", left, ", ", right,
                     ") must be smaller than the size of dim ", dim, " (", size, ")");
    } else if (mode == "circular") {
      TG_CHECK_VALUE(left <= size && right <= size, "[pad] circular padding (", left, ", ", right,
                     ") must be at most the size of dim ", dim, " (", size, ")");
    }
    const Tensor source =
        tg::tensor(padded_source(mode, size, left, right), TensorOptions().dtype(kLong)).to(result.device());
    result = result.index_select(dim, source);
  }
  // A new tensor even when nothing is padded, as LibTorch's (never an alias of self).
  return padded ? result : self.clone();
}

Tensor upsample_nearest1d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales) {
  return upsample("upsample_nearest1d", self, output_size, Interpolation::Nearest, false, {scales});
}

Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  return upsample("upsample_nearest2d", self, output_size, Interpolation::Nearest, false, {scales_h, scales_w});
}

Tensor upsample_nearest3d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_d,
                          std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample("upsample_nearest3d", self, output_size, Interpolation::Nearest, false,
                  {scales_d, scales_h, scales_w});
}

Tensor upsample_linear1d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                         std::optional<double> scales) {
  return upsample("upsample_linear1d", self, output_size, Interpolation::Linear, align_corners, {scales});
}

Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                           std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample("upsample_bilinear2d", self, output_size, Interpolation::Linear, align_corners,
                  {scales_h, scales_w});
}

Tensor upsample_trilinear3d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                            std::optional<double> scales_d, std::optional<double> scales_h,
                            std::optional<double> scales_w) {
  return upsample("upsample_trilinear3d", self, output_size, Interpolation::Linear, align_corners,
                  {scales_d, scales_h, scales_w});
}

}  // namespace tg::native
