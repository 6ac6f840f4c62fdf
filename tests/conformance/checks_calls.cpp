// The checks about calling conventions: registration, boxed calls, variants, out=,
// memory layouts and bad inputs.
#include <doctest/doctest.h>

#include <optional>
#include <sstream>

#include "check_support.h"
#include "checks.h"
#include "comparison.h"
#include "ops/structured.h"
#include "sample_inputs.h"

namespace tg::conformance {

namespace {

bool values_compared(const OpSpec& spec) { return !spec.values_uninitialized; }

// Results of running the overload on sample `i` in the primary dtype.
Stack sample_args(const OpSpec& spec, size_t i) {
  return materialize(spec, spec.samples[i], spec.primary_dtype(), kSeed + i);
}

void expect_same(const std::string& where, const Stack& expected, const Stack& actual, Tolerances tol,
                 bool values) {
  const std::string difference = mismatch(expected, actual, tol, values);
  if (!difference.empty()) fail(where + ": " + difference);
}

// Runs an in-place caller on a copy of `args`; checks that it returns the written argument
// itself, with its storage, holding `expected`.
void check_inplace_call(const OpSpec& spec, const std::string& name, Caller caller, const Stack& args,
                        const Stack& expected, const std::string& where) {
  Stack copy = clone_tensors(args);
  const Tensor self = copy.at(0).toTensor();
  // An in-place result is the function's, cast to self's dtype (eq_ writes 0 and 1 into floats).
  const Tensor want = tensors_in(expected).at(0).to(self.scalar_type());
  const void* storage_before = self.data_ptr();
  std::vector<Tensor> none;
  Outcome result = call(caller, copy, none);
  if (!result) return fail(where + ": " + name + " threw: " + result.error);
  const std::vector<Tensor> returned = tensors_in(result.results);
  if (returned.empty() || !returned[0].is_same(self)) fail(where + ": " + name + " did not return self");
  if (self.data_ptr() != storage_before) fail(where + ": " + name + " moved self to new storage");
  const Tolerances tol = tolerance_for(spec, self.scalar_type());
  const std::string difference = mismatch(want, self, tol, values_compared(spec));
  if (!difference.empty()) fail(where + ": " + name + " disagrees with the function: " + difference);
}

// A correctly sized out that is not contiguous, or nullopt for shapes that have no such out.
std::optional<Tensor> noncontiguous_out(const Tensor& like) {
  for (const Layout& layout : noncontiguous_layouts()) {
    if (!layout.keeps_values) continue;
    if (std::optional<Tensor> t = layout.apply(empty_like(like))) return t;
  }
  return std::nullopt;
}

// A dtype the result cannot be cast to (PyTorch's out= rule), or nullopt when every dtype can
// hold it (a bool result).
std::optional<ScalarType> uncastable_dtype(ScalarType result) {
  if (is_floating_type(result)) return kLong;
  if (result != kBool) return kBool;
  return std::nullopt;
}

}  // namespace

void check_registration(const OpSpec& spec) {
  std::optional<OperatorHandle> op = Dispatcher::singleton().findSchema("tg::" + spec.name);
  if (!op) return fail(spec.name + ": not registered with the dispatcher");
  FunctionSchema parsed = parse_schema(spec.schema);
  CHECK_MESSAGE(parsed.str() == spec.schema, spec.name, ": the schema does not round-trip: ", parsed.str());
  FunctionSchema registered = op->schema();
  parsed.name = registered.name;  // the registry adds the namespace
  CHECK_MESSAGE(registered == parsed, spec.name, ": registered as ", registered.str(), ", declared ", spec.schema);
  for (const std::string& key_name : spec.kernel_keys) {
    std::optional<DispatchKey> key = parse_dispatch_key(key_name);
    if (!key) {
      fail(spec.name + ": unknown dispatch key " + key_name);
    } else if (!op->hasKernelForDispatchKey(*key)) {
      fail(spec.name + ": no kernel registered for " + key_name + "; registered: " + op->dumpState());
    }
  }
}

void check_boxed(const OpSpec& spec) {
  for (size_t i = 0; i < spec.samples.size(); ++i) {
    const Stack args = sample_args(spec, i);
    const std::string where = context(spec, i, args);
    std::vector<Tensor> typed_outs, boxed_outs;
    if (spec.kind == OpKind::Out) {
      typed_outs = empty_outs(out_dtypes(spec, args), Device(kCPU));
      boxed_outs = empty_outs(out_dtypes(spec, args), Device(kCPU));
    }
    Outcome typed = call(spec.call, clone_tensors(args), typed_outs);
    Outcome boxed = call_boxed(spec, clone_tensors(args), boxed_outs);
    if (!typed) {
      fail(where + ": the typed call threw: " + typed.error);
    } else if (!boxed) {
      fail(where + ": the boxed call threw: " + boxed.error);
    } else {
      expect_same(where + ": boxed vs typed", typed.results, boxed.results, kExact, values_compared(spec));
    }
  }
}

void check_variants(const OpSpec& spec) {
  for (size_t i = 0; i < spec.samples.size(); ++i) {
    const Stack args = sample_args(spec, i);
    const std::string where = context(spec, i, args);
    const Caller function = spec.kind == OpKind::Functional ? spec.call : spec.functional;
    std::vector<Tensor> none;
    Outcome expected = function ? call(function, clone_tensors(args), none) : Outcome{};
    if (function && !expected) {
      fail(where + ": the function threw: " + expected.error);
      continue;
    }
    if (spec.kind == OpKind::Inplace) {
      if (!function) {  // no function to compare with: the call runs twice alike
        expected = call(spec.call, clone_tensors(args), none);
        if (!expected) {
          fail(where + ": threw: " + expected.error);
          continue;
        }
      }
      check_inplace_call(spec, spec.name, spec.call, args, expected.results, where);
      if (spec.method) check_inplace_call(spec, spec.name + " (method)", spec.method, args, expected.results, where);
      continue;
    }
    const Tensor first = tensors_in(expected.results).empty() ? Tensor() : tensors_in(expected.results)[0];
    const Tolerances tol = tolerance_for(spec, first.defined() ? first.scalar_type() : spec.primary_dtype());
    if (spec.method && spec.call != spec.method) {
      Outcome method = call(spec.method, clone_tensors(args), none);
      if (!method) {
        fail(where + ": the method threw: " + method.error);
      } else {
        expect_same(where + ": method vs function", expected.results, method.results, tol, values_compared(spec));
      }
    }
    if (spec.inplace) {
      const Tensor self = args.at(0).toTensor();
      if (first.defined() && first.sizes() == self.sizes() && can_cast(first.scalar_type(), self.scalar_type())) {
        check_inplace_call(spec, spec.inplace_name, spec.inplace, args, expected.results, where);
      } else {  // the result does not fit in self: the in-place variant must say so
        Outcome inplace = call(spec.inplace, clone_tensors(args), none);
        if (inplace || !inplace.tg_error) {
          fail(where + ": " + spec.inplace_name + " should raise tg::Error, since the result " +
               (first.defined() ? "does not fit in self" : "is undefined") +
               (inplace ? "; it returned" : "; it threw " + inplace.error));
        }
      }
    }
    if (spec.out) {
      std::vector<Tensor> outs = empty_outs(out_dtypes(spec, args), Device(kCPU));
      Outcome out = call(spec.out, clone_tensors(args), outs);
      if (!out) {
        fail(where + ": " + spec.out_name + " threw: " + out.error);
      } else {
        expect_same(where + ": " + spec.out_name + " vs function", expected.results, out.results, tol,
                    values_compared(spec));
      }
    }
  }
}

void check_out(const OpSpec& spec) {
  for (size_t i = 0; i < spec.samples.size(); ++i) {
    const Stack args = sample_args(spec, i);
    const std::string where = context(spec, i, args);
    const std::vector<ScalarType> dtypes = out_dtypes(spec, args);
    std::vector<Tensor> none;
    Outcome expected = spec.functional ? call(spec.functional, clone_tensors(args), none) : Outcome{};
    if (spec.functional && !expected) {
      fail(where + ": " + spec.functional_name + " threw: " + expected.error);
      continue;
    }
    // An empty out is resized to the result and returned.
    std::vector<Tensor> outs = empty_outs(dtypes, Device(kCPU));
    Outcome resized = call(spec.call, clone_tensors(args), outs);
    if (!resized) {
      fail(where + ": out= threw: " + resized.error);
      continue;
    }
    const std::vector<Tensor> returned = tensors_in(resized.results);
    for (size_t k = 0; k < outs.size(); ++k) {
      if (k >= returned.size() || !returned[k].is_same(outs[k])) fail(where + ": out " + std::to_string(k) + " not returned");
    }
    if (!spec.functional) {  // nothing to compare with: a second call must agree
      if (spec.values_uninitialized) continue;
      std::vector<Tensor> again = empty_outs(dtypes, Device(kCPU));
      expected = call(spec.call, clone_tensors(args), again);
    }
    const Stack want = expected.results;
    const std::vector<Tensor> want_tensors = tensors_in(want);
    expect_same(where + ": empty out", want, Stack(outs.begin(), outs.end()),
                tolerance_for(spec, dtypes.at(0)), values_compared(spec));
    // A correctly sized non-contiguous out keeps its strides and storage.
    std::vector<Tensor> strided;
    bool all_strided = true;
    for (const Tensor& t : want_tensors) {
      std::optional<Tensor> o = noncontiguous_out(t);
      all_strided = all_strided && o.has_value();
      if (o) strided.push_back(*o);
    }
    if (all_strided && !strided.empty()) {
      std::vector<std::vector<int64_t>> strides_before;
      std::vector<const void*> data_before;
      for (const Tensor& t : strided) {
        strides_before.push_back(t.strides().vec());
        data_before.push_back(t.data_ptr());
      }
      Outcome kept = call(spec.call, clone_tensors(args), strided);
      if (!kept) {
        fail(where + ": a non-contiguous out threw: " + kept.error);
      } else {
        for (size_t k = 0; k < strided.size(); ++k) {
          if (strided[k].strides().vec() != strides_before[k] || strided[k].data_ptr() != data_before[k]) {
            fail(where + ": a correctly sized non-contiguous out lost its strides or storage");
          }
        }
        expect_same(where + ": non-contiguous out", want, Stack(strided.begin(), strided.end()),
                    tolerance_for(spec, dtypes.at(0)), values_compared(spec));
      }
    }
    // An out of a dtype the result cannot be cast to is rejected. (A factory has no inputs to
    // take a dtype from: its out's dtype is the one asked for, as in PyTorch.)
    const bool has_inputs = !tensors_in(args).empty();
    if (std::optional<ScalarType> wrong = uncastable_dtype(dtypes.at(0)); wrong && has_inputs) {
      std::vector<Tensor> wrong_outs = empty_outs(dtypes, Device(kCPU));
      wrong_outs[0] = empty({0}, TensorOptions().dtype(*wrong));
      Outcome rejected = call(spec.call, clone_tensors(args), wrong_outs);
      if (rejected || !rejected.tg_error) {
        std::ostringstream message;
        message << where << ": an out of dtype " << *wrong << " for a " << dtypes.at(0) << " result should raise tg::Error; "
                << (rejected ? "it was accepted" : "it threw " + rejected.error);
        fail(message.str());
      }
    }
  }
}

void check_noncontiguous(const OpSpec& spec) {
  for (size_t i = 0; i < spec.samples.size(); ++i) {
    const Stack args = sample_args(spec, i);
    for (size_t a = 0; a < args.size(); ++a) {
      if (!args[a].isTensor() || !args[a].toTensor().defined()) continue;
      for (const Layout& layout : noncontiguous_layouts()) {
        if (!layout.keeps_values && spec.args[a].written) continue;  // writing to an expanded tensor is an error
        std::optional<Tensor> changed = layout.apply(args[a].toTensor());
        if (!changed) continue;
        Stack strided = clone_tensors(args), dense = clone_tensors(args);
        strided[a] = IValue(*changed);
        dense[a] = IValue(changed->contiguous());
        const std::string where = context(spec, i, strided) + ": " + spec.args[a].name + " " + layout.name;
        Outcome want = call_self(spec, dense);
        Outcome got = call_self(spec, strided);
        if (!want) {
          fail(where + ": the contiguous call threw: " + want.error);
        } else if (!got) {
          fail(where + ": threw: " + got.error);
        } else {
          const std::vector<Tensor> results = tensors_in(want.results);
          const ScalarType dtype = results.empty() ? spec.primary_dtype() : results[0].scalar_type();
          expect_same(where, want.results, got.results, tolerance_for(spec, dtype), values_compared(spec));
          for (size_t w : written_args(spec)) {  // what was written through the strides
            expect_same(where + ": written " + spec.args[w].name, Stack{dense[w]}, Stack{strided[w]},
                        tolerance_for(spec, dtype), values_compared(spec));
          }
        }
      }
    }
  }
}

void check_errors(const OpSpec& spec) {
  for (size_t i = 0; i < spec.error_samples.size(); ++i) {
    const ErrorSample& bad = spec.error_samples[i];
    const Stack args = materialize(spec, bad.sample, spec.primary_dtype(), kSeed + i);
    Outcome outcome = call_self(spec, args);
    const std::string where = spec.name + " with " + bad.what + " (" + describe(spec, args) + ")";
    if (!outcome) {
      if (!outcome.tg_error) fail(where + ": threw something other than tg::Error: " + outcome.error);
    } else {
      fail(where + ": accepted it; expected tg::Error");
    }
  }
}

}  // namespace tg::conformance
