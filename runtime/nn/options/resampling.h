// Options of F::pad (PadFuncOptions), F::interpolate (InterpolateFuncOptions) and Upsample
// (UpsampleOptions), in LibTorch's names and defaults; the modes are LibTorch's enum types
// (tg::kConstant, tg::kReflect, ..., tg::kNearest, tg::kBilinear, ...) held in a std::variant.
#pragma once

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "core/arg.h"
#include "nn/init.h"

namespace tg {
namespace enumtype {
struct kConstant {};
struct kReflect {};
struct kReplicate {};
struct kCircular {};
struct kNearest {};
struct kBilinear {};
struct kTrilinear {};
}  // namespace enumtype

inline constexpr enumtype::kConstant kConstant{};
inline constexpr enumtype::kReflect kReflect{};
inline constexpr enumtype::kReplicate kReplicate{};
inline constexpr enumtype::kCircular kCircular{};
inline constexpr enumtype::kNearest kNearest{};
inline constexpr enumtype::kBilinear kBilinear{};
inline constexpr enumtype::kTrilinear kTrilinear{};

namespace nn {

using PadMode = std::variant<enumtype::kConstant, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular>;
// kLinear is nn::init's (runtime/nn/init.h), as in LibTorch.
using InterpolateMode = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kTrilinear>;

struct UpsampleOptions {
  TG_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  TG_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  TG_ARG(InterpolateMode, mode) = tg::kNearest;
  TG_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

namespace functional {

struct PadFuncOptions {
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT
  TG_ARG(std::vector<int64_t>, pad);
  TG_ARG(PadMode, mode) = tg::kConstant;
  TG_ARG(double, value) = 0;
};

struct InterpolateFuncOptions {
  TG_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  TG_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  TG_ARG(InterpolateMode, mode) = tg::kNearest;
  TG_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

}  // namespace functional
}  // namespace nn
}  // namespace tg
