// Forward-mode AD: dual tensors (primal + tangent per dual level), as LibTorch's
// torch::autograd::forward_ad. Invariant: a tensor holding a tangent at a live level carries the
// Autograd dispatch key, so every operation on it reaches the generated autograd kernel, which
// sets the output's tangent from the operator's forward formula (schemas' `result:` key).
// Threading: levels belong to the thread that entered them (thread-local stack).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace tg::autograd::forward_ad {

// Note [Forward AD levels]
// Each dual_level gets a fresh id (never reused), pushed on this thread's level stack. A
// tangent is stored in the tensor's AutogradMeta keyed by that id; once the level exits its
// id is dead and its tangents are invisible (and dropped on the next write). Levels nest: an
// autograd kernel propagates the tangents of every live level, computing each level's tangent
// formula with that level masked, so the formula's own operations propagate the other
// (outer) levels' tangents but not their own: this is what keeps jvp(jvp(f)) free of
// perturbation confusion. tg::func::jvp/jacfwd open one level per call.

// RAII: enters a new dual level on construction, exits it (dropping its tangents) on
// destruction. As torch.autograd.forward_ad.dual_level.
class dual_level {
 public:
  dual_level();
  ~dual_level();
  dual_level(const dual_level&) = delete;
  dual_level& operator=(const dual_level&) = delete;
  uint64_t level() const noexcept { return level_; }

 private:
  uint64_t level_;
};

// Enters/exits a level explicitly; exit_dual_level requires the innermost level.
uint64_t enter_dual_level();
void exit_dual_level(uint64_t level);

// A view of `primal` whose tangent at `level` (default: the innermost live level) is
// `tangent`, which must have primal's sizes and dtype. Reverse-mode history of primal is kept.
Tensor make_dual(const Tensor& primal, const Tensor& tangent, std::optional<uint64_t> level = std::nullopt);

struct UnpackedDual {
  Tensor primal;   // a view of the dual without its tangent at that level
  Tensor tangent;  // undefined when the tensor has no tangent at that level
};
UnpackedDual unpack_dual(const Tensor& tensor, std::optional<uint64_t> level = std::nullopt);

namespace detail {

// Live, unmasked levels exist on this thread (the generated kernels' fast-path test).
bool any_level_active() noexcept;
// The live, unmasked levels, outermost first.
std::vector<uint64_t> active_levels();

// Hides `level` from propagation for the guard's lifetime (while its tangent formula runs).
class LevelMask {
 public:
  explicit LevelMask(uint64_t level);
  ~LevelMask();
  LevelMask(const LevelMask&) = delete;
  LevelMask& operator=(const LevelMask&) = delete;

 private:
  uint64_t level_;
};

// The tangent of t at level, or undefined.
Tensor tangent(const Tensor& t, uint64_t level);
// Whether any of the tensors (Tensor, optional<Tensor> or TensorList) has a tangent there.
bool has_tangent(uint64_t level, const Tensor& t);
bool has_tangent(uint64_t level, const std::optional<Tensor>& t);
bool has_tangent(uint64_t level, TensorList list);
inline bool has_tangent(uint64_t level, const std::vector<std::optional<Tensor>>& list) {  // Tensor?[]
  for (const auto& t : list) {
    if (has_tangent(level, t)) return true;
  }
  return false;
}
template <typename... Tensors>
bool any_has_tangent(uint64_t level, const Tensors&... tensors) {
  return (has_tangent(level, tensors) || ...);
}

// What a forward formula reads as `x_t`: the tangent, or zeros of x's shape when x has none.
Tensor tangent_or_zeros(const Tensor& t, uint64_t level);
std::optional<Tensor> tangent_or_zeros(const std::optional<Tensor>& t, uint64_t level);
std::vector<Tensor> tangent_or_zeros(TensorList list, uint64_t level);

// Sets the tangent of an operator's output. The formula's value is expanded to the output's
// shape when it is a broadcast of it (a formula over unbroadcast inputs) and converted to its
// dtype; undefined values and outputs of non-floating dtype get no tangent.
void set_tangent(const Tensor& output, uint64_t level, const Tensor& value, const char* op);
// Raises "[op] forward-mode AD is not implemented" when an input has a tangent at a live level.
[[noreturn]] void raise_not_implemented(const char* op, const char* reason);
template <typename... Tensors>
void check_no_tangent(const char* op, const char* reason, const Tensors&... tensors) {
  if (!any_level_active()) return;
  for (uint64_t level : active_levels()) {
    if (any_has_tangent(level, tensors...)) raise_not_implemented(op, reason);
  }
}

}  // namespace detail
}  // namespace tg::autograd::forward_ad
