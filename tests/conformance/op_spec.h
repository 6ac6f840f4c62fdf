// OpSpec: what the generated conformance tests know about one overload, built from its
// schema and its `conformance:` block by codegen/conformance.py. The checks in checks.h read
// nothing else, so every operator is tested by the same hand-written code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <tensorgen/tensorgen.h>

namespace tg::conformance {

// A call through the typed C++ API. `args` holds every non-out argument in schema order
// (defaults filled in); `outs` the out tensors of an out overload, written in place.
using Caller = Stack (*)(const Stack& args, std::vector<Tensor>& outs);

// The scalar reference: one double per non-out argument (tensors read elementwise after
// broadcasting; numbers as themselves), in schema order, and the call's arguments, from
// which it reads the rest (a `str approximate`).
using Reference = double (*)(const double* values, const Stack& args);

enum class OpKind { Functional, Inplace, Out };

// Where sampled values lie (schemas/README.md, `domain:`).
struct Domain {
  enum Kind { Any, Positive, Nonzero, Unit, Interval } kind = Any;
  double low = 0, high = 0;
};

struct ArgSpec {
  enum Role { Tensor, OptionalTensor, TensorList, Value } role = Value;
  std::string name;
  bool written = false;         // Tensor(a!): the overload writes it
  bool differentiable = false;  // gradcheck differentiates it
  std::optional<ScalarType> pinned_dtype;  // `input_dtypes:`; else the dtype under test
  Domain domain;
};

// One argument of one sample: a shape, a list of shapes, a value, or the schema default.
struct SampleValue {
  enum Kind { Default, Shape, Shapes, Value } kind = Default;
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> shapes;
  IValue value;
  // A tensor spec in the sample (`{shape: [6], dtype: int64, domain: [0, 5]}`) overrides
  // the argument's own dtype and domain.
  std::optional<ScalarType> dtype;
  std::optional<Domain> domain;
};
using Sample = std::vector<SampleValue>;  // one per non-out argument

inline SampleValue use_default() { return {}; }
inline SampleValue shape(std::vector<int64_t> s) {
  SampleValue v;
  v.kind = SampleValue::Shape;
  v.shape = std::move(s);
  return v;
}
inline SampleValue shapes(std::vector<std::vector<int64_t>> s) {
  SampleValue v;
  v.kind = SampleValue::Shapes;
  v.shapes = std::move(s);
  return v;
}
inline SampleValue value(IValue value) {
  SampleValue v;
  v.kind = SampleValue::Value;
  v.value = std::move(value);
  return v;
}
inline SampleValue tensor(std::vector<int64_t> s, std::optional<ScalarType> dtype, Domain domain) {
  SampleValue v = shape(std::move(s));
  v.dtype = dtype;
  if (domain.kind != Domain::Any) v.domain = domain;
  return v;
}

// A bad input and what is wrong with it, for the `errors` check.
struct ErrorSample {
  std::string what;  // "shapes that do not broadcast", "dim out of range", ...
  Sample sample;
};

struct Tolerance {
  ScalarType dtype;
  double atol, rtol;
};

struct OpSpec {
  std::string name;      // "add.Tensor"
  std::string schema;    // canonical schema text
  OpKind kind = OpKind::Functional;
  std::vector<std::string> kernel_keys;  // every dispatch key the entry registers
  std::vector<ArgSpec> args;             // non-out arguments, schema order
  std::vector<std::string> out_names;    // out arguments (out overloads)
  std::vector<Sample> samples;
  std::vector<ErrorSample> error_samples;

  Caller call = nullptr;     // the overload through its function (or its method if it has none)
  Caller method = nullptr;   // the overload through its method, when it has one
  // Siblings, called with the same arguments: the in-place and out overloads of a
  // functional one, and the functional overload of an in-place or out one.
  Caller inplace = nullptr;
  Caller out = nullptr;
  Caller functional = nullptr;
  std::string inplace_name, out_name, functional_name;
  size_t out_count = 0;      // outputs the out sibling (or this out overload) writes

  Reference reference = nullptr;
  std::string reference_text;
  std::vector<Tolerance> tolerances;    // overrides of the per-dtype defaults
  std::vector<ScalarType> dtypes;       // `dtypes:`: the dtypes numeric checks run in
  bool values_uninitialized = false;    // `compare: metadata` (empty and friends)
  bool random = false;                  // tagged nondeterministic_seeded: draws from a generator
  bool device_check = true;             // false for `device_check: NoCheck` (copy_, to, expand_as)
  std::vector<bool> differentiable_outputs;  // per return (output_differentiability); empty: all

  // The operator as the dispatcher knows it ("tg::add.Tensor").
  OperatorHandle handle() const { return Dispatcher::singleton().findSchemaOrThrow("tg::" + name); }

  // The dtype the dtype-independent checks run in: the first of `dtypes`, else float32.
  ScalarType primary_dtype() const { return dtypes.empty() ? kFloat : dtypes.front(); }
};

}  // namespace tg::conformance
