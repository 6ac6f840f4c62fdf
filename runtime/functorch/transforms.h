// tg::func: composable function transforms, as torch.func / JAX (grad, grad_and_value, vjp,
// jvp, jacrev, jacfwd, hessian, vmap). Each transform takes a callable over Tensors and
// returns one, so they nest: tg::func::vmap(tg::func::grad(loss))(xs) gives per-sample
// gradients, tg::func::jacfwd(tg::func::jacrev(f)) a Hessian. Every call of a transform
// pushes an interpreter with a fresh level (interpreter_stack.h); see docs/transforms.md.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tg::func {

// What every transform works on internally: a function of a list of tensors.
using TensorFn = std::function<Tensor(const std::vector<Tensor>&)>;

struct VjpResult {
  Tensor output;
  // The cotangent `v` (shaped like output) pulled back: one gradient per primal.
  std::function<std::vector<Tensor>(const Tensor& v)> vjp_fn;
};

namespace detail {

template <typename F, size_t... I>
Tensor call_with(const F& f, const std::vector<Tensor>& args, std::index_sequence<I...>) {
  return f(args[I]...);
}
// f(Tensor, ..., Tensor) with N arguments, as a TensorFn.
template <size_t N, typename F>
TensorFn erase(F f) {
  return [f = std::move(f)](const std::vector<Tensor>& args) { return call_with(f, args, std::make_index_sequence<N>{}); };
}

std::pair<Tensor, Tensor> grad_and_value(const TensorFn& f, std::vector<Tensor> args, int64_t argnum);
VjpResult vjp(const TensorFn& f, std::vector<Tensor> primals);
std::pair<Tensor, Tensor> jvp(const TensorFn& f, std::vector<Tensor> primals, std::vector<Tensor> tangents);
Tensor jacrev(const TensorFn& f, std::vector<Tensor> args, int64_t argnum);
Tensor jacfwd(const TensorFn& f, std::vector<Tensor> args, int64_t argnum);
Tensor vmap(const TensorFn& f, std::vector<Tensor> args, const std::vector<std::optional<int64_t>>& in_dims,
            int64_t out_dim, std::optional<int64_t> chunk_size);

}  // namespace detail

// The gradient of a scalar-valued f with respect to argument `argnum`.
template <typename F>
auto grad(F f, int64_t argnum = 0) {
  return [f, argnum](const auto&... args) {
    return detail::grad_and_value(detail::erase<sizeof...(args)>(f), {Tensor(args)...}, argnum).first;
  };
}

// (gradient, value) of a scalar-valued f.
template <typename F>
auto grad_and_value(F f, int64_t argnum = 0) {
  return [f, argnum](const auto&... args) {
    return detail::grad_and_value(detail::erase<sizeof...(args)>(f), {Tensor(args)...}, argnum);
  };
}

// f's output at the primals and its vector-Jacobian product function.
template <typename F, typename... Args>
VjpResult vjp(F f, const Args&... primals) {
  return detail::vjp(detail::erase<sizeof...(Args)>(f), {Tensor(primals)...});
}

// (f(primals), J(primals) · tangents): forward mode, one dual level.
template <typename F>
std::pair<Tensor, Tensor> jvp(F f, std::vector<Tensor> primals, std::vector<Tensor> tangents) {
  return detail::jvp(
      [f](const std::vector<Tensor>& args) { return f(args); }, std::move(primals), std::move(tangents));
}

// The Jacobian of f with respect to argument `argnum`, shaped output.sizes() + input.sizes():
// reverse mode, one vmapped vector-Jacobian product over the output's basis.
template <typename F>
auto jacrev(F f, int64_t argnum = 0) {
  return [f, argnum](const auto&... args) {
    return detail::jacrev(detail::erase<sizeof...(args)>(f), {Tensor(args)...}, argnum);
  };
}

// The same Jacobian, forward mode: one vmapped Jacobian-vector product over the input's basis.
template <typename F>
auto jacfwd(F f, int64_t argnum = 0) {
  return [f, argnum](const auto&... args) {
    return detail::jacfwd(detail::erase<sizeof...(args)>(f), {Tensor(args)...}, argnum);
  };
}

// The Hessian of a scalar-valued f: jacfwd(jacrev(f)), forward over reverse.
template <typename F>
auto hessian(F f, int64_t argnum = 0) {
  return jacfwd(jacrev(std::move(f), argnum), argnum);
}

// f mapped over dim in_dims[i] of argument i (nullopt: not mapped; empty: every argument
// over dim 0); the outputs' batch dim goes to out_dims. chunk_size splits the batch into
// vmaps of at most that many samples (memory for speed), as torch.func.vmap's chunk_size.
template <typename F>
auto vmap(F f, std::vector<std::optional<int64_t>> in_dims = {}, int64_t out_dims = 0,
          std::optional<int64_t> chunk_size = std::nullopt) {
  return [f, in_dims, out_dims, chunk_size](const auto&... args) {
    return detail::vmap(detail::erase<sizeof...(args)>(f), {Tensor(args)...}, in_dims, out_dims, chunk_size);
  };
}

// How many operator calls inside vmap ran the loop fallback (no batching rule), per
// operator, since the last reset. See Note [Counted fallback] in docs/transforms.md.
std::vector<std::pair<std::string, int64_t>> vmap_fallbacks();
int64_t vmap_fallback_count();
void reset_vmap_fallbacks();

}  // namespace tg::func
