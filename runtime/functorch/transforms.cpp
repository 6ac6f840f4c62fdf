#include "functorch/transforms.h"

#include <algorithm>

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

// See Note [Transforms over BatchedTensors] in docs/transforms.md: grad, vjp and jvp work on
// the plain tensor inside the BatchedTensor wrappers, so that a gradient taken inside vmap is
// one backward pass for the whole batch. Lifted is that plain tensor with every batch dim in
// front, in ascending level order, and the levels.
struct Lifted {
  Tensor base;
  std::vector<int64_t> levels;  // levels[i] is the vmap of base's dim i
};

// Peels every wrapper of t, moving each batch dim to the front; then sorts the front dims by level.
Lifted peel_all(const Tensor& t) {
  Lifted out{t, {}};
  while (const BatchedTensorImpl* b = functorch::maybe_batched(out.base)) {
    out.levels.insert(out.levels.begin(), b->level());
    out.base = functorch::move_dim(b->value(), b->bdim(), 0);
  }
  return out;
}

Lifted sorted(Lifted l) {
  const size_t k = l.levels.size();
  std::vector<size_t> order(k);
  for (size_t i = 0; i < k; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return l.levels[a] < l.levels[b]; });
  std::vector<int64_t> perm;
  std::vector<int64_t> levels;
  for (size_t i : order) {
    perm.push_back(static_cast<int64_t>(i));
    levels.push_back(l.levels[i]);
  }
  for (int64_t d = static_cast<int64_t>(k); d < l.base.dim(); ++d) perm.push_back(d);
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
  return {identity ? l.base : l.base.permute(perm), levels};
}

// t as a plain tensor batched (broadcast where t is not) over every running vmap.
Lifted lift(const Tensor& t) {
  Lifted l = peel_all(t);
  for (const functorch::Interpreter& vmap : functorch::live_vmaps()) {
    if (std::find(l.levels.begin(), l.levels.end(), vmap.level) != l.levels.end()) continue;
    std::vector<int64_t> sizes{vmap.batch_size};
    sizes.insert(sizes.end(), l.base.sizes().begin(), l.base.sizes().end());
    l.base = l.base.unsqueeze(0).expand(sizes);
    l.levels.insert(l.levels.begin(), vmap.level);
  }
  return sorted(std::move(l));
}

// The inverse of lift: base's front dims become BatchedTensor wrappers of `levels`, the
// highest level outermost (base may itself be batched, at levels of transforms inside).
Tensor lower(const Tensor& base, const std::vector<int64_t>& levels) {
  Lifted inner = peel_all(base);
  inner.levels.insert(inner.levels.end(), levels.begin(), levels.end());
  Lifted all = sorted(std::move(inner));
  Tensor out = all.base;
  for (int64_t level : all.levels) out = functorch::make_batched(out, 0, level);
  return out;
}

// `v`, shaped like the logical tensor lifted as `l`, laid out like l.base: batched where v is
// batched at the same level, broadcast where it is not.
Tensor to_base_layout(Tensor v, const Lifted& l) {
  for (auto it = l.levels.rbegin(); it != l.levels.rend(); ++it) {
    if (std::optional<Tensor> p = functorch::physical_at(v, *it)) {
      v = *p;
    } else {
      v = v.unsqueeze(0);
    }
  }
  return v.sizes() == l.base.sizes() ? v : v.expand(l.base.sizes());
}

void check_output_levels(const Lifted& out, const std::vector<Lifted>& inputs, const char* transform) {
  for (int64_t level : out.levels) {
    bool found = false;
    for (const Lifted& c : inputs) found |= std::find(c.levels.begin(), c.levels.end(), level) != c.levels.end();
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

// The n x n identity in like's dtype: zeros with the diagonal (every (n + 1)-th element) set,
// one pass over the memory where a comparison of indices and a conversion took three.
Tensor basis(int64_t n, const Tensor& like) {
  Tensor eye = tg::zeros({n, n}, TensorOptions().dtype(like.scalar_type()).device(like.device()));
  if (n > 0) eye.as_strided({n}, {n + 1}).fill_(1);
  return eye;
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
  Lifted input = lift(args[static_cast<size_t>(argnum)]);
  const bool outer = need_graph({input.base});
  Tensor leaf = differentiable_alias(input.base);
  args[static_cast<size_t>(argnum)] = lower(leaf, input.levels);
  Tensor out = f(args);
  TG_CHECK(out.defined() && out.numel() == 1, "[grad] expected the function to return a tensor of one element, got ",
           out.defined() ? out.sizes() : IntArrayRef{});
  Lifted output = peel_all(out);
  check_output_levels(output, {input}, "grad");
  Tensor g;
  if (output.base.requires_grad()) {
    g = autograd::grad({output.base}, {leaf}, {tg::ones_like(output.base)}, outer, outer, true)[0];
  }
  if (!g.defined()) g = tg::zeros_like(leaf);
  return {lower(g, input.levels), out};
}

VjpResult vjp(const TensorFn& f, std::vector<Tensor> primals) {
  functorch::InterpreterGuard guard(functorch::TransformType::Vjp);
  std::vector<Lifted> inputs;
  std::vector<Tensor> leaves;
  std::vector<Tensor> bases;
  for (Tensor& p : primals) {
    inputs.push_back(lift(p));
    bases.push_back(inputs.back().base);
    leaves.push_back(differentiable_alias(inputs.back().base));
    p = lower(leaves.back(), inputs.back().levels);
  }
  const bool outer = need_graph(bases);
  Tensor out = f(primals);
  Lifted output = sorted(peel_all(out));
  check_output_levels(output, inputs, "vjp");
  auto fn = [leaves, inputs, output, outer, sizes = out.sizes().vec()](const Tensor& v) {
    TG_CHECK(v.defined() && v.sizes() == IntArrayRef(sizes), "[vjp] expected a cotangent of the output's shape ",
             IntArrayRef(sizes), ", got ", v.defined() ? v.sizes() : IntArrayRef{});
    std::vector<Tensor> grads(leaves.size());
    if (output.base.requires_grad()) {
      grads = autograd::grad({output.base}, leaves, {to_base_layout(v, output)}, true, outer, true);
    }
    for (size_t i = 0; i < grads.size(); ++i) {
      if (!grads[i].defined()) grads[i] = tg::zeros_like(leaves[i]);
      grads[i] = lower(grads[i], inputs[i].levels);
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
  std::vector<Lifted> inputs;
  for (size_t i = 0; i < primals.size(); ++i) {
    TG_CHECK(tangents[i].defined() && tangents[i].sizes() == primals[i].sizes(), "[jvp] expected tangent ", i,
             " of the primal's shape ", primals[i].sizes(), ", got ",
             tangents[i].defined() ? tangents[i].sizes() : IntArrayRef{});
    inputs.push_back(lift(primals[i]));
    const Tensor& base = inputs.back().base;
    Tensor tangent = lift(tangents[i]).base;
    if (tangent.sizes() != base.sizes()) tangent = tangent.expand(base.sizes());
    if (tangent.scalar_type() != base.scalar_type()) tangent = tangent.to(base.scalar_type());
    primals[i] = lower(autograd::forward_ad::make_dual(base, tangent, level.level()), inputs.back().levels);
  }
  Tensor out = f(primals);
  Lifted output = sorted(peel_all(out));
  check_output_levels(output, inputs, "jvp");
  auto unpacked = autograd::forward_ad::unpack_dual(output.base, level.level());
  Tensor tangent = unpacked.tangent.defined() ? unpacked.tangent : tg::zeros_like(unpacked.primal);
  // Reading the primal through unpack_dual drops this level's tangent from what escapes.
  return {lower(unpacked.primal, output.levels), lower(tangent, output.levels)};
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
  out = lower(out, {});  // canonical: this level's wrapper outermost, if it has one
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
