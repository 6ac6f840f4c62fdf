#include "functorch/transforms.h"

#include "Functions.h"
#include "TensorMethods.h"
#include "autograd/autograd.h"
#include "autograd/forward_ad.h"
#include "core/error.h"
#include "functorch/batched_tensor.h"
#include "functorch/batching_rules.h"
#include "functorch/interpreter_stack.h"

namespace tg::func {
namespace detail {
namespace {

using functorch::BatchedTensorImpl;

// The BatchedTensor wrappers around a tensor, outermost first, and the plain tensor inside.
// See Note [Transforms over BatchedTensors] in docs/transforms.md: grad, vjp and jvp work on
// the plain tensor, so that a gradient taken inside vmap is one backward pass for the batch.
struct Chain {
  std::vector<std::pair<int64_t, int64_t>> wrappers;  // (level, bdim)
  Tensor base;
};

Chain peel(const Tensor& t) {
  Chain c;
  c.base = t;
  while (const BatchedTensorImpl* b = functorch::maybe_batched(c.base)) {
    c.wrappers.emplace_back(b->level(), b->bdim());
    c.base = b->value();
  }
  return c;
}

Tensor rewrap(Tensor base, const Chain& c) {
  for (auto it = c.wrappers.rbegin(); it != c.wrappers.rend(); ++it) base = functorch::make_batched(base, it->second, it->first);
  return base;
}

// `v`, shaped like the logical tensor whose wrappers are `c`, laid out like c.base: batched
// where v is batched at the same level, broadcast over the batch where it is not.
Tensor to_base_layout(Tensor v, const Chain& c, const Tensor& base) {
  for (const auto& [level, bdim] : c.wrappers) {
    std::optional<Tensor> p = functorch::physical_at(v, level);
    if (p) {
      v = functorch::move_dim(*p, 0, bdim);
    } else {
      v = v.unsqueeze(bdim);
    }
  }
  return v.sizes() == base.sizes() ? v : v.expand(base.sizes());
}

void check_output_levels(const Chain& out, const std::vector<Chain>& inputs, const char* transform) {
  for (const auto& [level, bdim] : out.wrappers) {
    bool found = false;
    for (const Chain& c : inputs) {
      for (const auto& w : c.wrappers) found |= w.first == level;
    }
    TG_CHECK(found, "[", transform, "] the function's output is batched over a vmap (level ", level,
             ") that its differentiated inputs are not: it reads a tensor batched by an enclosing vmap "
             "without being given it. Pass that tensor as an input of the transformed function");
  }
}

// An alias of the plain tensor that requires grad: a fresh leaf when t is not tracked, a
// view keeping t's history (for an enclosing grad) otherwise. Tangents follow the alias.
Tensor differentiable_alias(const Tensor& t) {
  TG_CHECK(t.defined() && is_floating_type(t.scalar_type()), "[grad] expected a floating-point input, got ",
           t.defined() ? std::string(to_string(t.scalar_type())) : std::string("an undefined tensor"));
  Tensor alias = t.expand(t.sizes());
  if (!alias.requires_grad()) alias.requires_grad_(true);
  return alias;
}

bool need_graph(const std::vector<Tensor>& bases) {
  if (autograd::forward_ad::detail::any_level_active()) return true;  // forward over reverse
  for (const Tensor& b : bases) {
    if (b.requires_grad()) return true;  // an enclosing grad differentiates this backward pass
  }
  return false;
}

Tensor basis(int64_t n, const Tensor& like) {
  Tensor index = tg::arange(n, TensorOptions().dtype(kLong).device(like.device()));
  return tg::eq(index.unsqueeze(1), index.unsqueeze(0)).to(like.scalar_type());
}

std::vector<int64_t> concat(IntArrayRef a, IntArrayRef b) {
  std::vector<int64_t> out(a.begin(), a.end());
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

}  // namespace

std::pair<Tensor, Tensor> grad_and_value(const TensorFn& f, std::vector<Tensor> args, int64_t argnum) {
  TG_CHECK(argnum >= 0 && argnum < static_cast<int64_t>(args.size()), "[grad] argnum ", argnum,
           " out of range for a function of ", args.size(), " arguments");
  functorch::InterpreterGuard guard(functorch::TransformType::Grad);
  Chain chain = peel(args[static_cast<size_t>(argnum)]);
  const bool outer = need_graph({chain.base});
  Tensor leaf = differentiable_alias(chain.base);
  args[static_cast<size_t>(argnum)] = rewrap(leaf, chain);
  Tensor out = f(args);
  TG_CHECK(out.defined() && out.numel() == 1, "[grad] expected the function to return a tensor of one element, got ",
           out.defined() ? out.sizes() : IntArrayRef{});
  Chain out_chain = peel(out);
  check_output_levels(out_chain, {chain}, "grad");
  Tensor g;
  if (out_chain.base.requires_grad()) {
    g = autograd::grad({out_chain.base}, {leaf}, {tg::ones_like(out_chain.base)}, outer, outer, true)[0];
  }
  if (!g.defined()) g = tg::zeros_like(leaf);
  return {rewrap(g, chain), out};
}

VjpResult vjp(const TensorFn& f, std::vector<Tensor> primals) {
  functorch::InterpreterGuard guard(functorch::TransformType::Grad);
  std::vector<Chain> chains;
  std::vector<Tensor> leaves;
  std::vector<Tensor> bases;
  for (Tensor& p : primals) {
    chains.push_back(peel(p));
    bases.push_back(chains.back().base);
    leaves.push_back(differentiable_alias(chains.back().base));
    p = rewrap(leaves.back(), chains.back());
  }
  const bool outer = need_graph(bases);
  Tensor out = f(primals);
  Chain out_chain = peel(out);
  check_output_levels(out_chain, chains, "vjp");
  auto fn = [leaves, chains, out_chain, outer, sizes = out.sizes().vec()](const Tensor& v) {
    TG_CHECK(v.defined() && v.sizes() == IntArrayRef(sizes), "[vjp] expected a cotangent of the output's shape ",
             IntArrayRef(sizes), ", got ", v.defined() ? v.sizes() : IntArrayRef{});
    std::vector<Tensor> grads(leaves.size());
    if (out_chain.base.requires_grad()) {
      Tensor cotangent = to_base_layout(v, out_chain, out_chain.base);
      grads = autograd::grad({out_chain.base}, leaves, {cotangent}, true, outer, true);
    }
    for (size_t i = 0; i < grads.size(); ++i) {
      if (!grads[i].defined()) grads[i] = tg::zeros_like(leaves[i]);
      grads[i] = rewrap(grads[i], chains[i]);
    }
    return grads;
  };
  return {out, fn};
}

std::pair<Tensor, Tensor> jvp(const TensorFn& f, std::vector<Tensor> primals, std::vector<Tensor> tangents) {
  TG_CHECK(primals.size() == tangents.size(), "[jvp] expected one tangent per primal, got ", tangents.size(),
           " tangents for ", primals.size(), " primals");
  functorch::InterpreterGuard guard(functorch::TransformType::Jvp);
  autograd::forward_ad::dual_level level;
  std::vector<Chain> chains;
  for (size_t i = 0; i < primals.size(); ++i) {
    TG_CHECK(tangents[i].defined() && tangents[i].sizes() == primals[i].sizes(), "[jvp] expected tangent ", i,
             " of the primal's shape ", primals[i].sizes(), ", got ",
             tangents[i].defined() ? tangents[i].sizes() : IntArrayRef{});
    chains.push_back(peel(primals[i]));
    const Tensor& base = chains.back().base;
    Tensor tangent = to_base_layout(tangents[i], chains.back(), base);
    if (tangent.scalar_type() != base.scalar_type()) tangent = tangent.to(base.scalar_type());
    primals[i] = rewrap(autograd::forward_ad::make_dual(base, tangent, level.level()), chains.back());
  }
  Tensor out = f(primals);
  Chain out_chain = peel(out);
  check_output_levels(out_chain, chains, "jvp");
  auto unpacked = autograd::forward_ad::unpack_dual(out_chain.base, level.level());
  Tensor tangent = unpacked.tangent.defined() ? unpacked.tangent : tg::zeros_like(unpacked.primal);
  // Reading the primal through unpack_dual drops this level's tangent from what escapes.
  return {rewrap(unpacked.primal, out_chain), rewrap(tangent, out_chain)};
}

Tensor jacrev(const TensorFn& f, std::vector<Tensor> args, int64_t argnum) {
  TG_CHECK(argnum >= 0 && argnum < static_cast<int64_t>(args.size()), "[jacrev] argnum ", argnum,
           " out of range for a function of ", args.size(), " arguments");
  const Tensor input = args[static_cast<size_t>(argnum)];
  std::vector<Tensor> others = args;
  VjpResult result = detail::vjp(
      [&](const std::vector<Tensor>& x) {
        std::vector<Tensor> all = others;
        all[static_cast<size_t>(argnum)] = x[0];
        return f(all);
      },
      {input});
  const Tensor& out = result.output;
  const int64_t m = out.numel();
  Tensor cotangents = basis(m, out).reshape(concat({m}, out.sizes()));
  auto pullback = [&](const Tensor& v) { return result.vjp_fn(v)[0]; };
  Tensor rows = detail::vmap(erase<1>(pullback), {cotangents}, {0}, 0, std::nullopt);
  return rows.reshape(concat(out.sizes(), input.sizes()));
}

Tensor jacfwd(const TensorFn& f, std::vector<Tensor> args, int64_t argnum) {
  TG_CHECK(argnum >= 0 && argnum < static_cast<int64_t>(args.size()), "[jacfwd] argnum ", argnum,
           " out of range for a function of ", args.size(), " arguments");
  const Tensor input = args[static_cast<size_t>(argnum)];
  const int64_t n = input.numel();
  Tensor tangents = basis(n, input).reshape(concat({n}, input.sizes()));
  IntArrayRef out_sizes;
  std::vector<int64_t> out_shape;
  auto push = [&](const Tensor& u) {
    auto [out, tangent] = detail::jvp(
        [&](const std::vector<Tensor>& x) {
          std::vector<Tensor> all = args;
          all[static_cast<size_t>(argnum)] = x[0];
          return f(all);
        },
        {input}, {u});
    out_shape = out.sizes().vec();
    return tangent;
  };
  Tensor columns = detail::vmap(erase<1>(push), {tangents}, {0}, 0, std::nullopt);  // [n, out...]
  const int64_t m = columns.numel() / std::max<int64_t>(n, 1);
  return columns.reshape({n, m}).t().reshape(concat(out_shape, input.sizes()));
}

Tensor vmap(const TensorFn& f, std::vector<Tensor> args, const std::vector<std::optional<int64_t>>& in_dims,
            int64_t out_dim, std::optional<int64_t> chunk_size) {
  TG_CHECK(in_dims.empty() || in_dims.size() == args.size(), "[vmap] expected one in_dim per argument (",
           args.size(), "), got ", in_dims.size());
  int64_t batch = -1;
  std::vector<std::optional<int64_t>> dims(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    std::optional<int64_t> d = in_dims.empty() ? std::optional<int64_t>(0) : in_dims[i];
    if (!d) continue;
    const int64_t rank = args[i].dim();
    TG_CHECK(*d >= -rank && *d < rank, "[vmap] in_dim ", *d, " of argument ", i, " is out of range for a tensor of ",
             rank, " dims");
    dims[i] = *d < 0 ? *d + rank : *d;
    const int64_t size = args[i].size(*dims[i]);
    TG_CHECK(batch < 0 || size == batch, "[vmap] expected every mapped argument to have the same size along its "
             "in_dim; argument ", i, " has ", size, ", an earlier one ", batch);
    batch = size;
  }
  TG_CHECK(batch >= 0, "[vmap] expected at least one argument with an in_dim, got none");
  TG_CHECK(!chunk_size || *chunk_size > 0, "[vmap] chunk_size must be positive, got ", *chunk_size);
  if (chunk_size && *chunk_size < batch) {
    std::vector<Tensor> pieces;
    for (int64_t start = 0; start < batch; start += *chunk_size) {
      const int64_t length = std::min(*chunk_size, batch - start);
      std::vector<Tensor> chunk = args;
      for (size_t i = 0; i < args.size(); ++i) {
        if (dims[i]) chunk[i] = args[i].narrow(*dims[i], start, length);
      }
      pieces.push_back(vmap(f, chunk, in_dims, out_dim, std::nullopt));
    }
    return tg::cat(pieces, out_dim);
  }
  functorch::InterpreterGuard guard(functorch::TransformType::Vmap, batch);
  for (size_t i = 0; i < args.size(); ++i) {
    if (dims[i]) args[i] = functorch::make_batched(args[i], *dims[i], guard.level());
  }
  Tensor out = f(args);
  TG_CHECK(out.defined(), "[vmap] the function returned an undefined tensor");
  const int64_t out_rank = out.dim() + 1;
  TG_CHECK(out_dim >= -out_rank && out_dim < out_rank, "[vmap] out_dims ", out_dim,
           " is out of range for an output of ", out_rank, " dims (batch dim included)");
  const int64_t where = out_dim < 0 ? out_dim + out_rank : out_dim;
  if (std::optional<Tensor> p = functorch::physical_at(out, guard.level())) return functorch::move_dim(*p, 0, where);
  // An output that does not depend on the mapped inputs: the same for every sample.
  std::vector<int64_t> sizes = out.sizes().vec();
  sizes.insert(sizes.begin() + where, batch);
  return out.unsqueeze(where).expand(sizes);
}

}  // namespace detail

std::vector<std::pair<std::string, int64_t>> vmap_fallbacks() {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& [name, count] : functorch::fallback_counts()) out.emplace_back(name, count);
  return out;
}

int64_t vmap_fallback_count() { return functorch::total_fallbacks(); }
void reset_vmap_fallbacks() { functorch::reset_fallback_counts(); }

}  // namespace tg::func
