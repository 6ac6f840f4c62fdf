// The transform checks (docs/transforms.md): forward_ad (jvp against central finite
// differences), fwd_bwd_consistency (<v, J u> == <J^T v, u>) and vmap (a vmap over a batch of
// 3 equals 3 calls, batched along dim 0 and along a non-leading dim). All in float64.
#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include "autograd/autograd.h"
#include "autograd/forward_ad.h"
#include "check_support.h"
#include "checks.h"
#include "comparison.h"
#include "functorch/transforms.h"
#include "sample_inputs.h"

namespace tg::conformance {
namespace {

namespace fwd = autograd::forward_ad;

// A differentiable floating input: argument index and list element (-1: a plain Tensor).
struct Place {
  size_t arg;
  int64_t element;
  std::string name;
};

std::vector<Place> differentiable_places(const OpSpec& spec, const Stack& args) {
  std::vector<Place> places;
  for (size_t a = 0; a < args.size(); ++a) {
    if (!spec.args[a].differentiable) continue;
    if (args[a].isTensor() && args[a].toTensor().defined() && args[a].toTensor().is_floating_point()) {
      places.push_back({a, -1, spec.args[a].name});
    } else if (args[a].isTensorList()) {
      const auto list = args[a].toTensorList();
      for (size_t k = 0; k < list.size(); ++k) {
        if (list[k].is_floating_point()) places.push_back({a, static_cast<int64_t>(k), spec.args[a].name});
      }
    }
  }
  return places;
}

Tensor get(const Stack& args, const Place& p) {
  return p.element < 0 ? args[p.arg].toTensor() : args[p.arg].toTensorList()[static_cast<size_t>(p.element)];
}

void set(Stack& args, const Place& p, const Tensor& value) {
  if (p.element < 0) {
    args[p.arg] = IValue(value);
    return;
  }
  std::vector<Tensor> list = args[p.arg].toTensorList().vec();
  list[static_cast<size_t>(p.element)] = value;
  args[p.arg] = IValue(list);
}

// The differentiable floating outputs of one call; written arguments are cloned first.
std::vector<Tensor> outputs_of(const OpSpec& spec, Stack args) {
  for (size_t w : written_args(spec)) {
    if (args[w].isTensor()) args[w] = IValue(args[w].toTensor().clone());
  }
  manual_seed(kSeed);  // random operators draw the same values at every evaluation
  std::vector<Tensor> none;
  Stack results = spec.call(args, none);
  std::vector<Tensor> outputs;
  for (size_t r = 0; r < results.size(); ++r) {
    if (r < spec.differentiable_outputs.size() && !spec.differentiable_outputs[r]) continue;
    for (const Tensor& t : tensors_in(Stack{results[r]})) {
      if (t.defined() && t.is_floating_point()) outputs.push_back(t);
    }
  }
  return outputs;
}

// J u for every output, through dual tensors.
std::vector<Tensor> jvp_of(const OpSpec& spec, const Stack& args, const std::vector<Place>& places,
                           const std::vector<Tensor>& tangents) {
  fwd::dual_level level;
  Stack dual = args;
  for (size_t w : written_args(spec)) {
    if (dual[w].isTensor()) dual[w] = IValue(dual[w].toTensor().clone());
  }
  for (size_t k = 0; k < places.size(); ++k) set(dual, places[k], fwd::make_dual(get(dual, places[k]), tangents[k]));
  std::vector<Tensor> result;
  for (const Tensor& out : outputs_of(spec, dual)) {
    Tensor t = fwd::unpack_dual(out).tangent;
    result.push_back(t.defined() ? t.clone() : zeros_like(out));
  }
  return result;
}

std::vector<Tensor> random_like(const Stack& args, const std::vector<Place>& places, uint64_t seed) {
  std::vector<Tensor> values;
  for (size_t k = 0; k < places.size(); ++k) values.push_back(random_tensor(get(args, places[k]).sizes(), kDouble, {}, seed + k));
  return values;
}

double dot(const Tensor& a, const Tensor& b) { return (a * b).sum().item<double>(); }

// Runs `check(where, args, places, u)` on every sample in float64, with a random direction `u`
// for each differentiable input (seeded by `direction_seed`); what it throws is a failure.
template <class Check>
void for_each_sample_direction(const OpSpec& spec, uint64_t direction_seed, const Check& check) {
  for (size_t i = 0; i < spec.samples.size(); ++i) {
    const Stack args = materialize(spec, spec.samples[i], kDouble, kSeed + i);
    const std::string where = context(spec, i, args);
    const std::vector<Place> places = differentiable_places(spec, args);
    if (places.empty()) {
      fail(where + ": no differentiable floating input to check");
      continue;
    }
    const std::vector<Tensor> u = random_like(args, places, direction_seed + i);
    try {
      check(where, args, places, u);
    } catch (const std::exception& e) {
      fail(where + ": threw: " + e.what());
    }
  }
}

}  // namespace

void check_forward_ad(const OpSpec& spec) {
  for_each_sample_direction(spec, kSeed + 100, [&](const std::string& where, const Stack& args,
                                               const std::vector<Place>& places, const std::vector<Tensor>& u) {
    const std::vector<Tensor> jvp = jvp_of(spec, args, places, u);
    const double eps = 1e-6;
    Stack plus = args, minus = args;
    for (size_t k = 0; k < places.size(); ++k) {
      set(plus, places[k], get(args, places[k]) + u[k] * eps);
      set(minus, places[k], get(args, places[k]) - u[k] * eps);
    }
    const std::vector<Tensor> up = outputs_of(spec, plus), down = outputs_of(spec, minus);
    REQUIRE(up.size() == jvp.size());
    for (size_t r = 0; r < jvp.size(); ++r) {
      Tensor fd = (up[r] - down[r]) / (2 * eps);
      const std::string difference = mismatch(fd, jvp[r], {1e-5, 1e-4});
      if (!difference.empty()) fail(where + ": output " + std::to_string(r) + ": jvp disagrees with finite differences: " + difference);
    }
  });
}

void check_fwd_bwd_consistency(const OpSpec& spec) {
  for_each_sample_direction(spec, kSeed + 200, [&](const std::string& where, const Stack& args,
                                               const std::vector<Place>& places, const std::vector<Tensor>& u) {
    const std::vector<Tensor> ju = jvp_of(spec, args, places, u);
    Stack tracked = args;
    autograd::variable_list inputs;
    for (const Place& p : places) {
      inputs.push_back(get(args, p).detach().requires_grad_());
      set(tracked, p, inputs.back());
    }
    autograd::variable_list outputs = outputs_of(spec, tracked);
    autograd::variable_list v;
    double lhs = 0, rhs = 0;
    for (size_t r = 0; r < outputs.size(); ++r) {
      v.push_back(random_tensor(outputs[r].sizes(), kDouble, {}, kSeed + 300 + r));
      lhs += dot(v[r], ju[r]);
    }
    autograd::variable_list vjp = autograd::grad(outputs, inputs, v, std::nullopt, false, true);
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (vjp[k].defined()) rhs += dot(vjp[k], u[k]);
    }
    if (std::abs(lhs - rhs) > 1e-8 * (1 + std::abs(lhs) + std::abs(rhs))) {
      fail(where + ": <v, J u> = " + std::to_string(lhs) + " but <J^T v, u> = " + std::to_string(rhs) +
           ": the forward and backward formulas disagree");
    }
  });
}

void check_vmap(const OpSpec& spec) {
  constexpr int64_t kBatch = 3;
  for (size_t i = 0; i < spec.samples.size(); ++i) {
    std::vector<Stack> per_sample;
    for (int64_t b = 0; b < kBatch; ++b) per_sample.push_back(materialize(spec, spec.samples[i], kDouble, kSeed + 10 * i + b));
    const Stack& first = per_sample[0];
    const std::string where = context(spec, i, first);
    // Every tensor (and list element) is mapped; the rest comes from the first sample.
    std::vector<Place> places;
    for (size_t a = 0; a < first.size(); ++a) {
      if (first[a].isTensor() && first[a].toTensor().defined()) places.push_back({a, -1, spec.args[a].name});
      if (first[a].isTensorList()) {
        for (size_t k = 0; k < first[a].toTensorList().size(); ++k) places.push_back({a, static_cast<int64_t>(k), spec.args[a].name});
      }
    }
    if (places.empty()) continue;
    try {
      std::vector<std::vector<Tensor>> loop;
      for (const Stack& s : per_sample) loop.push_back(outputs_of(spec, s));
      for (size_t r = 0; r < loop[0].size(); ++r) {
        std::vector<Tensor> rows;
        for (auto& outs : loop) rows.push_back(outs[r]);
        const Tensor expected = stack(rows, 0);
        for (bool leading : {true, false}) {
          std::vector<Tensor> batched;
          std::vector<std::optional<int64_t>> in_dims;
          for (const Place& p : places) {
            std::vector<Tensor> values;
            for (const Stack& s : per_sample) values.push_back(get(s, p));
            const int64_t dim = leading || values[0].dim() == 0 ? 0 : 1;
            batched.push_back(stack(values, dim));
            in_dims.push_back(dim);
          }
          func::TensorFn fn = [&](const std::vector<Tensor>& tensors) {
            Stack call_args = first;
            for (size_t k = 0; k < places.size(); ++k) set(call_args, places[k], tensors[k]);
            return outputs_of(spec, call_args).at(r);
          };
          const Tensor got = func::detail::vmap(fn, batched, in_dims, 0, std::nullopt);
          const std::string difference = mismatch(expected, got, tolerance_for(spec, kDouble));
          if (!difference.empty()) {
            fail(where + ": output " + std::to_string(r) + (leading ? "" : ", batched along dim 1") +
                 ": vmap disagrees with a loop of calls: " + difference);
          }
        }
      }
    } catch (const std::exception& e) {
      fail(where + ": threw: " + e.what());
    }
  }
}

}  // namespace tg::conformance
