// The reduction of a loss as LibTorch's options spell it: tg::kNone, tg::kMean, tg::kSum
// (distinct types held in a std::variant), and their translation to the operators' int.
#pragma once

#include <cstdint>
#include <variant>

#include "core/reduction.h"

namespace tg {
namespace enumtype {
struct kNone {};
struct kMean {};
struct kSum {};
}  // namespace enumtype

inline constexpr enumtype::kNone kNone{};
inline constexpr enumtype::kMean kMean{};
inline constexpr enumtype::kSum kSum{};

namespace nn {
using LossReduction = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;

inline int64_t reduction_value(const LossReduction& reduction) {
  if (std::holds_alternative<enumtype::kNone>(reduction)) return Reduction::None;
  if (std::holds_alternative<enumtype::kSum>(reduction)) return Reduction::Sum;
  return Reduction::Mean;
}
}  // namespace nn
}  // namespace tg
