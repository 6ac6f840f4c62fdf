#include "functorch/batching_rules.h"

#include <mutex>
#include <unordered_map>

#include "Functions.h"
#include "TensorMethods.h"
#include "core/error.h"
#include "core/reduction.h"
#include "functorch/batch_frame.h"
#include "functorch/batched_tensor.h"

namespace tg::functorch {
namespace {

// Function-local statics: the generated registration fills them during static
// initialization, possibly before this file's globals would be constructed.
struct Registry {
  std::mutex mutex;  // guards both maps
  std::map<std::string, int64_t> fallback_counts;
  std::unordered_map<std::string, std::string> reduce_all_targets;
};

Registry& registry() {
  static Registry r;
  return r;
}

Tensor pad_after_batch(Tensor physical, int64_t logical_rank) {
  while (physical.dim() - 1 < logical_rank) physical = physical.unsqueeze(1);
  return physical;
}

int64_t wrap(int64_t dim, int64_t rank, const BatchFrame& f) {
  const int64_t wrapped = dim < 0 ? dim + rank : dim;
  TG_CHECK(wrapped >= 0 && wrapped < std::max<int64_t>(rank, 1), "[", f.name(), "] dim ", dim,
           " out of range for a tensor of ", rank, " dims (inside vmap)");
  return wrapped;
}

bool is_dim_name(const std::string& n) { return n == "dim" || n == "dim0" || n == "dim1"; }
bool is_size_name(const std::string& n) { return n == "size" || n == "shape" || n == "input_sizes"; }

}  // namespace

void batch_rule_pointwise(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  if (f.is_inplace()) f.check_inplace_self();
  int64_t rank = 0;
  for (const IValue& a : f.args) {
    if (a.isTensor() && a.toTensor().defined()) rank = std::max(rank, logical_rank(a.toTensor()));
  }
  std::vector<IValue> args = f.args;
  for (IValue& a : args) {
    if (!a.isTensor()) continue;
    if (std::optional<Tensor> p = physical_at(a.toTensor(), f.level)) a = pad_after_batch(*p, rank);
  }
  std::vector<IValue> out = f.call(std::move(args));
  if (f.is_inplace()) {
    stack->push_back(f.args[0]);
    return;
  }
  f.push_batched(stack, std::move(out));
}

void batch_rule_dims(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  BatchFrame f(op, stack);
  if (f.is_inplace()) f.check_inplace_self();
  size_t first = f.args.size();
  for (size_t i = 0; i < f.args.size(); ++i) {
    if (f.args[i].isTensor()) {
      first = i;
      break;
    }
  }
  const Tensor self = first < f.args.size() ? f.args[first].toTensor() : Tensor();
  if (!self.defined() || !physical_at(self, f.level)) {
    // Only a secondary operand is batched: the rule's dim arithmetic does not apply.
    Stack s = f.args;
    for (IValue& v : s) stack->push_back(std::move(v));
    return batch_fallback(op, ks, stack);
  }
  // A 0-dim sample takes dim 0 or -1 as if it had one dim: give it that dim (size 1), and take
  // it off the outputs again.
  bool has_dim = false;
  for (const Argument& arg : f.schema.arguments) has_dim |= is_dim_name(arg.name) || arg.name == "dims";
  const bool is_unsqueeze = f.schema.name == "tg::unsqueeze" || f.schema.name == "unsqueeze";
  const bool scalar_sample = logical_rank(self) == 0 && has_dim && !is_unsqueeze;
  const int64_t rank = scalar_sample ? 1 : logical_rank(self);
  // Dims index the operand, except where they index something of another rank: unsqueeze's
  // output, a backward's `input_sizes`.
  int64_t dims_rank = rank;
  if (is_unsqueeze) dims_rank = rank + 1;
  for (size_t i = 0; i < f.args.size(); ++i) {
    if (f.schema.arguments[i].name == "input_sizes" && f.args[i].isIntList()) {
      dims_rank = static_cast<int64_t>(f.args[i].toIntList().size());
    }
  }
  const bool is_view = f.schema.name == "tg::view" || f.schema.name == "view";
  std::vector<IValue> args = f.args;
  for (size_t i = 0; i < args.size(); ++i) {
    const Argument& arg = f.schema.arguments[i];
    IValue& a = args[i];
    if (a.isTensor() && a.toTensor().defined()) {
      const Tensor& t = a.toTensor();
      std::optional<Tensor> p = physical_at(t, f.level);
      if (logical_rank(t) == logical_rank(self)) {
        a = batched_front(t, f.level, f.batch_size);
        if (scalar_sample) a = a.toTensor().unsqueeze(1);
      } else if (p) {
        Stack s = f.args;
        for (IValue& v : s) stack->push_back(std::move(v));
        return batch_fallback(op, ks, stack);  // a batched operand of another rank
      }
    } else if (a.isInt() && is_dim_name(arg.name)) {
      a = wrap(a.toInt(), dims_rank, f) + 1;
    } else if (arg.name == "dim" && (a.isIntList() || a.isNone()) && arg.type.is_list) {
      std::vector<int64_t> dims;
      if (a.isNone() || a.toIntList().empty()) {
        for (int64_t d = 0; d < rank; ++d) dims.push_back(d + 1);
      } else {
        for (int64_t d : a.toIntList()) dims.push_back(wrap(d, rank, f) + 1);
      }
      a = dims;
    } else if (arg.name == "dims" && a.isIntList()) {
      std::vector<int64_t> dims{0};
      for (int64_t d : a.toIntList()) dims.push_back(wrap(d, rank, f) + 1);
      a = dims;
    } else if (is_size_name(arg.name) && a.isIntList()) {
      std::vector<int64_t> sizes{f.batch_size};
      IntArrayRef given = a.toIntList();
      sizes.insert(sizes.end(), given.begin(), given.end());
      a = sizes;
      // expand may add leading dims: pad self's logical rank to the target's first.
      if (args[first].isTensor() && static_cast<int64_t>(given.size()) > rank && arg.name == "size") {
        args[first] = pad_after_batch(args[first].toTensor(), static_cast<int64_t>(given.size()));
      }
      // A batch dim moved to the front from elsewhere leaves the physical tensor
      // non-contiguous, where view with the batch in front cannot apply: view a contiguous
      // copy (the values are right; writes through this view do not reach the input).
      if (is_view && args[first].isTensor() && !args[first].toTensor().is_contiguous()) {
        args[first] = args[first].toTensor().contiguous();
      }
    } else if (arg.name == "dim" && a.isNone()) {
      Stack s = f.args;
      for (IValue& v : s) stack->push_back(std::move(v));
      return batch_fallback(op, ks, stack);  // dim=None flattens the whole tensor
    }
  }
  std::vector<IValue> out = f.call(std::move(args));
  if (f.is_inplace()) {
    stack->push_back(f.args[0]);
    return;
  }
  if (scalar_sample) {
    for (IValue& v : out) {
      if (v.isTensor() && v.toTensor().defined() && v.toTensor().dim() > 1) v = v.toTensor().squeeze(1);
    }
  }
  f.push_batched(stack, std::move(out));
}

void batch_rule_reduce_all(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  std::string via;
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    auto it = registry().reduce_all_targets.find(op.operator_name().str());
    if (it != registry().reduce_all_targets.end()) via = it->second;
  }
  if (via.empty()) return batch_fallback(op, ks, stack);
  BatchFrame f(op, stack);
  const Tensor& self = f.args[0].toTensor();
  std::optional<Tensor> p = physical_at(self, f.level);
  TG_INTERNAL_ASSERT(p.has_value(), "reduce_all without a batched self");
  std::vector<int64_t> dims;
  for (int64_t d = 1; d < p->dim(); ++d) dims.push_back(d);
  OperatorHandle target = Dispatcher::singleton().findSchemaOrThrow(via);
  // The target's arguments: self, dim, keepdim, then whatever the op had after self.
  Stack s{*p, dims.empty() ? IValue(std::vector<int64_t>{}) : IValue(dims), false};
  for (size_t i = 1; i < f.args.size(); ++i) s.push_back(f.args[i]);
  if (dims.empty()) {
    // A 0-dim sample: reducing nothing is the identity (for sum, mean and max alike).
    s = {p->clone()};
  } else {
    target.callBoxed(&s);
  }
  f.push_batched(stack, std::move(s));
}

void batch_rule_cat(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  std::vector<IValue> args = f.args;
  std::vector<Tensor> tensors;
  int64_t rank = 0;
  for (const Tensor& t : f.args[0].toTensorList()) rank = std::max(rank, logical_rank(t));
  for (const Tensor& t : f.args[0].toTensorList()) {
    // cat skips 1-D empty tensors (legacy behaviour); with a batch dim they would not be.
    if (rank > 1 && logical_rank(t) == 1 && t.size(0) == 0) continue;
    tensors.push_back(batched_front(t, f.level, f.batch_size));
  }
  args[0] = tensors;
  const bool is_stack = f.schema.name == "tg::stack" || f.schema.name == "stack";
  args[1] = wrap(args[1].toInt(), is_stack ? rank + 1 : rank, f) + 1;
  f.push_batched(stack, f.call(std::move(args)));
}

void batch_rule_loss(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  std::vector<IValue> args = f.args;
  int64_t reduction = Reduction::Mean;
  int64_t rank = 0;
  for (const IValue& a : f.args) {
    if (a.isTensor()) rank = std::max(rank, logical_rank(a.toTensor()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].isTensor()) {
      // As pointwise: the operands broadcast against each other per sample.
      if (std::optional<Tensor> p = physical_at(args[i].toTensor(), f.level)) args[i] = pad_after_batch(*p, rank);
    } else if (f.schema.arguments[i].name == "reduction") {
      reduction = args[i].toInt();
      args[i] = static_cast<int64_t>(Reduction::None);
    }
  }
  Tensor unreduced = f.call(std::move(args))[0].toTensor();
  std::vector<int64_t> dims;
  for (int64_t d = 1; d < unreduced.dim(); ++d) dims.push_back(d);
  Tensor out = unreduced;
  if (reduction != Reduction::None && !dims.empty()) {
    out = reduction == Reduction::Mean ? unreduced.mean(dims, false) : unreduced.sum(dims, false);
  }
  f.push_batched(stack, {out});
}

void batch_fallback(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  BatchFrame f(op, stack);
  if (f.is_inplace()) f.check_inplace_self();
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    ++registry().fallback_counts[f.name()];
  }
  // Each batched argument's physical value, batch dim in front.
  std::vector<std::optional<Tensor>> physical(f.args.size());
  for (size_t i = 0; i < f.args.size(); ++i) {
    if (f.args[i].isTensor()) physical[i] = physical_at(f.args[i].toTensor(), f.level);
  }
  std::vector<std::vector<IValue>> per_sample;
  for (int64_t b = 0; b < f.batch_size; ++b) {
    std::vector<IValue> args = f.args;
    for (size_t i = 0; i < args.size(); ++i) {
      if (physical[i]) {
        args[i] = physical[i]->select(0, b);
      } else if (args[i].isTensorList()) {
        std::vector<Tensor> elements;
        for (const Tensor& t : args[i].toTensorList()) {
          std::optional<Tensor> p = physical_at(t, f.level);
          elements.push_back(p ? p->select(0, b) : t);
        }
        args[i] = elements;
      }
    }
    per_sample.push_back(f.call(std::move(args)));
  }
  if (f.is_inplace()) {
    stack->push_back(f.args[0]);
    return;
  }
  const size_t n_out = f.schema.returns.size();
  std::vector<IValue> outputs;
  for (size_t r = 0; r < n_out; ++r) {
    const IValue& first = per_sample.at(0).at(r);
    if (first.isTensor()) {
      std::vector<Tensor> samples;
      for (auto& s : per_sample) samples.push_back(s[r].toTensor());
      outputs.emplace_back(tg::stack(samples, 0));
    } else {
      TG_CHECK(!first.isTensorList(), "[vmap] ", f.name(), ": the loop fallback cannot batch a Tensor[] output");
      outputs.push_back(first);  // a non-tensor output (the same for every sample)
    }
  }
  f.push_batched(stack, std::move(outputs));
}

void declare_reduce_all(std::string_view op, std::string_view via) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().reduce_all_targets["tg::" + std::string(op)] = "tg::" + std::string(via);
}

std::map<std::string, int64_t> fallback_counts() {
  std::lock_guard<std::mutex> lock(registry().mutex);
  return registry().fallback_counts;
}

int64_t total_fallbacks() {
  int64_t n = 0;
  for (const auto& [name, count] : fallback_counts()) n += count;
  return n;
}

void reset_fallback_counts() {
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().fallback_counts.clear();
}

}  // namespace tg::functorch
