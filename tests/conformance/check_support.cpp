#include "check_support.h"

#include <doctest/doctest.h>

#include "sample_inputs.h"

namespace tg::conformance {

namespace {

template <typename F>
Outcome guarded(F&& f) {
  Outcome outcome;
  manual_seed(kSeed);
  try {
    outcome.results = f();
  } catch (const Error& e) {
    outcome.threw = outcome.tg_error = true;
    outcome.error = e.what();
    outcome.message = e.message();
  } catch (const std::exception& e) {
    outcome.threw = true;
    outcome.error = e.what();
  }
  return outcome;
}

}  // namespace

Outcome call(Caller caller, const Stack& args, std::vector<Tensor>& outs) {
  return guarded([&] { return caller(args, outs); });
}

Outcome call_boxed(const OpSpec& spec, const Stack& args, std::vector<Tensor>& outs) {
  return guarded([&] {
    OperatorHandle op = spec.handle();
    Stack stack;
    size_t next_arg = 0, next_out = 0;
    for (const Argument& argument : op.schema().arguments) {
      const bool is_out = argument.kwarg_only && argument.type.alias && argument.type.alias->is_write;
      stack.push_back(is_out ? IValue(outs.at(next_out++)) : args.at(next_arg++));
    }
    op.callBoxed(stack);
    return stack;
  });
}

std::string context(const OpSpec& spec, size_t sample, const Stack& args) {
  return spec.name + ", sample " + std::to_string(sample) + " (" + describe(spec, args) + ")";
}

void fail(const std::string& message) { FAIL_CHECK(message); }

std::vector<ScalarType> out_dtypes(const OpSpec& spec, const Stack& args) {
  Caller functional = spec.kind == OpKind::Functional ? spec.call : spec.functional;
  std::vector<ScalarType> dtypes;
  if (functional != nullptr) {
    std::vector<Tensor> none;
    Outcome result = call(functional, clone_tensors(args), none);
    if (result) {
      for (const Tensor& t : tensors_in(result.results)) dtypes.push_back(t.scalar_type());
    }
  }
  if (dtypes.size() != spec.out_count) {  // no functional sibling: the inputs' dtype
    const std::vector<Tensor> inputs = tensors_in(args);
    dtypes.assign(spec.out_count, inputs.empty() ? spec.primary_dtype() : inputs.front().scalar_type());
  }
  return dtypes;
}

Outcome call_self(const OpSpec& spec, const Stack& args) {
  std::vector<Tensor> outs;
  if (spec.kind == OpKind::Out) outs = empty_outs(out_dtypes(spec, args), Device(kCPU));
  return call(spec.call, args, outs);
}

std::vector<size_t> written_args(const OpSpec& spec) {
  std::vector<size_t> indices;
  for (size_t i = 0; i < spec.args.size(); ++i) {
    if (spec.args[i].written) indices.push_back(i);
  }
  return indices;
}

}  // namespace tg::conformance
