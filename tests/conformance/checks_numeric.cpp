// The checks about values: dtypes, the scalar reference, and gradients.
#include <doctest/doctest.h>

#include <map>
#include <sstream>

#include "autograd/gradcheck.h"
#include "check_support.h"
#include "checks.h"
#include "comparison.h"
#include "sample_inputs.h"

namespace tg::conformance {

namespace {

// The operator's name as its kernels' dtype dispatch gives it: "add" for add.Tensor,
// add_.Tensor and add.out.
std::string root_name(const std::string& overload) {
  std::string name = overload.substr(0, overload.find('.'));
  while (!name.empty() && name.back() == '_') name.pop_back();
  while (!name.empty() && name.front() == '_') name.erase(0, 1);
  return name;
}

// The dtypes the operator's own dtype dispatch says it supports: "[exp] not implemented for
// 'int8'; supported: float16, ..." (kernels/dtype_dispatch.h). Empty for other errors, and for
// those of the operators a composite calls ("[col2im] ..."): their sets are theirs.
std::vector<ScalarType> claimed_dtypes(const std::string& message, const std::string& op) {
  static const std::string marker = "; supported: ";
  std::vector<ScalarType> claimed;
  const size_t at = message.rfind(marker);
  if (at == std::string::npos || message.rfind("[" + root_name(op) + "]", 0) != 0) return claimed;
  std::istringstream names(message.substr(at + marker.size()));
  std::string name;
  while (std::getline(names, name, ',')) {
    const size_t first = name.find_first_not_of(' ');
    if (first != std::string::npos) claimed.push_back(scalar_type_from_string(name.substr(first)));
  }
  return claimed;
}

struct DtypeProbe {
  std::vector<ScalarType> ran;      // in kAllDtypes order
  std::vector<ScalarType> claimed;  // union of the dispatch errors' claims
  std::map<ScalarType, Outcome> failures;
};

// Runs sample 0 in every dtype. Cached: dtypes and reference both need it.
const DtypeProbe& probe(const OpSpec& spec) {
  static std::map<const OpSpec*, DtypeProbe> cache;
  auto found = cache.find(&spec);
  if (found != cache.end()) return found->second;
  DtypeProbe result;
  for (ScalarType dtype : kAllDtypes) {
    Outcome outcome = call_self(spec, materialize(spec, spec.samples.at(0), dtype, kSeed));
    if (outcome) {
      result.ran.push_back(dtype);
      continue;
    }
    for (ScalarType t : claimed_dtypes(outcome.message, spec.name)) {
      if (std::find(result.claimed.begin(), result.claimed.end(), t) == result.claimed.end()) result.claimed.push_back(t);
    }
    result.failures.emplace(dtype, std::move(outcome));
  }
  return cache.emplace(&spec, std::move(result)).first->second;
}

bool contains(const std::vector<ScalarType>& set, ScalarType t) { return std::find(set.begin(), set.end(), t) != set.end(); }

std::string names(const std::vector<ScalarType>& set) {
  std::ostringstream out;
  for (size_t i = 0; i < set.size(); ++i) out << (i ? ", " : "") << set[i];
  return out.str();
}

// The dtypes numeric checks run in: `dtypes:` when given, else every dtype that ran.
std::vector<ScalarType> numeric_dtypes(const OpSpec& spec) { return spec.dtypes.empty() ? probe(spec).ran : spec.dtypes; }

// What the reference gives for every element of `result`, rounded to its dtype.
Tensor reference_values(const OpSpec& spec, const Stack& args, const Tensor& result) {
  std::vector<std::vector<double>> inputs(args.size());
  std::vector<bool> is_tensor(args.size());
  std::vector<double> scalars(args.size(), 0.0);
  for (size_t a = 0; a < args.size(); ++a) {
    if (args[a].isTensor() && args[a].toTensor().defined()) {
      is_tensor[a] = true;
      inputs[a] = values_of(args[a].toTensor().expand(result.sizes()));
    } else if (args[a].isScalar()) {
      scalars[a] = args[a].toScalar().toDouble();
    }
  }
  Tensor expected = empty(result.sizes(), TensorOptions().dtype(kDouble));
  double* out = expected.data_ptr<double>();
  std::vector<double> point(args.size());
  for (int64_t e = 0; e < result.numel(); ++e) {
    for (size_t a = 0; a < args.size(); ++a) point[a] = is_tensor[a] ? inputs[a][static_cast<size_t>(e)] : scalars[a];
    out[e] = spec.reference(point.data(), args);
  }
  return expected.to(result.scalar_type());
}

// Inputs of a gradient check: the differentiable floating tensors of `args`, requiring grad,
// and where each goes back (argument index, list element or -1).
struct GradInputs {
  autograd::variable_list tensors;
  std::vector<std::pair<size_t, int64_t>> places;
  std::vector<std::string> names;
};

GradInputs grad_inputs(const OpSpec& spec, Stack& args) {
  GradInputs inputs;
  for (size_t a = 0; a < args.size(); ++a) {
    if (!spec.args[a].differentiable) continue;
    if (args[a].isTensor() && args[a].toTensor().defined() && args[a].toTensor().is_floating_point()) {
      inputs.tensors.push_back(args[a].toTensor().requires_grad_());
      inputs.places.emplace_back(a, -1);
      inputs.names.push_back(spec.args[a].name);
    } else if (args[a].isTensorList()) {
      const auto list = args[a].toTensorList();
      for (size_t k = 0; k < list.size(); ++k) {
        if (!list[k].is_floating_point()) continue;
        inputs.tensors.push_back(list[k].detach().requires_grad_());
        inputs.places.emplace_back(a, static_cast<int64_t>(k));
        inputs.names.push_back(spec.args[a].name + "[" + std::to_string(k) + "]");
      }
    }
  }
  return inputs;
}

// The overload as a function of its differentiable inputs; written arguments are cloned first,
// so the function never writes to a leaf.
autograd::DifferentiableFunction as_function(const OpSpec& spec, const Stack& args, const GradInputs& inputs) {
  return [&spec, args, places = inputs.places](const autograd::variable_list& values) {
    manual_seed(kSeed);  // random operators draw the same values at every evaluation
    Stack call_args = args;
    std::map<size_t, std::vector<Tensor>> lists;
    for (size_t i = 0; i < values.size(); ++i) {
      const auto [a, element] = places[i];
      if (element < 0) {
        call_args[a] = IValue(spec.args[a].written ? values[i].clone() : values[i]);
      } else {
        if (!lists.count(a)) lists[a] = call_args[a].toTensorList().vec();
        lists[a][static_cast<size_t>(element)] = values[i];
      }
    }
    for (auto& [a, list] : lists) call_args[a] = IValue(list);
    for (size_t w : written_args(spec)) {
      if (call_args[w].isTensor() && !call_args[w].toTensor().requires_grad()) call_args[w] = IValue(call_args[w].toTensor().clone());
    }
    std::vector<Tensor> none;
    Stack results = spec.call(call_args, none);
    autograd::variable_list outputs;
    for (size_t r = 0; r < results.size(); ++r) {
      if (r < spec.differentiable_outputs.size() && !spec.differentiable_outputs[r]) continue;
      for (const Tensor& t : tensors_in(Stack{results[r]})) {
        if (t.defined() && t.is_floating_point()) outputs.push_back(t);
      }
    }
    return outputs;
  };
}

void run_gradient_check(const OpSpec& spec, bool second_order) {
  for (size_t i = 0; i < spec.samples.size(); ++i) {
    Stack args = materialize(spec, spec.samples[i], kDouble, kSeed + i);
    GradInputs inputs = grad_inputs(spec, args);
    const std::string where = context(spec, i, args);
    if (inputs.tensors.empty()) {
      fail(where + ": no differentiable floating input to check");
      continue;
    }
    auto fn = as_function(spec, args, inputs);
    autograd::GradcheckResult result;
    try {
      result = second_order ? autograd::gradgradcheck(fn, inputs.tensors) : autograd::gradcheck(fn, inputs.tensors);
    } catch (const std::exception& e) {
      result = {false, std::string("threw: ") + e.what()};
    }
    if (!result) {
      std::string legend;
      for (size_t k = 0; k < inputs.names.size(); ++k) legend += (k ? ", " : "") + std::to_string(k) + " = '" + inputs.names[k] + "'";
      fail(where + ": " + (second_order ? "gradgradcheck" : "gradcheck") + " failed: " + result.message +
           " (inputs: " + legend + ")");
    }
  }
}

}  // namespace

void check_dtypes(const OpSpec& spec) {
  const DtypeProbe& found = probe(spec);
  if (found.ran.empty()) fail(spec.name + ": runs in no dtype at all");
  for (const auto& [dtype, outcome] : found.failures) {
    std::ostringstream name;
    name << dtype;
    if (!outcome.tg_error) {
      fail(spec.name + " in " + name.str() + ": threw something other than tg::Error: " + outcome.error);
    } else if (outcome.error.find(name.str()) == std::string::npos) {
      fail(spec.name + " in " + name.str() + ": the error does not name the dtype it was given: " + outcome.error);
    }
  }
  for (ScalarType t : found.claimed) {
    if (!contains(found.ran, t)) {
      std::ostringstream message;
      message << spec.name << ": a kernel's dtype dispatch claims " << t << " but the operator fails in it: "
              << found.failures.at(t).error;
      fail(message.str());
    }
  }
  for (ScalarType t : spec.dtypes) {
    if (!contains(found.ran, t)) {
      std::ostringstream message;
      message << spec.name << ": `dtypes:` lists " << t << ", which does not run (it runs in " << names(found.ran) << ")";
      fail(message.str());
    }
  }
}

void check_reference(const OpSpec& spec) {
  for (ScalarType dtype : numeric_dtypes(spec)) {
    for (size_t i = 0; i < spec.samples.size(); ++i) {
      const Stack args = materialize(spec, spec.samples[i], dtype, kSeed + i);
      const std::string where = context(spec, i, args);
      std::vector<Tensor> none;
      Outcome result = call_self(spec, args);
      if (!result) {
        fail(where + ": threw: " + result.error);
        continue;
      }
      const Tensor got = tensors_in(result.results).at(0);
      const Tensor want = reference_values(spec, args, got);
      const std::string difference = mismatch(want, got, tolerance_for(spec, got.scalar_type()));
      if (!difference.empty()) fail(where + ": disagrees with the reference `" + spec.reference_text + "`: " + difference);
    }
  }
}

void check_gradcheck(const OpSpec& spec) { run_gradient_check(spec, false); }
void check_gradgradcheck(const OpSpec& spec) { run_gradient_check(spec, true); }

}  // namespace tg::conformance
