// PythonOperator: every overload bound to one Python name, and the one runtime parser that
// matches a call's positional and keyword arguments against them. Overloads are tried in
// declaration order; the first whose every argument converts wins (see Note [Overload
// resolution] in python_operator.cpp). A call no overload takes raises TypeError listing the
// signatures, each with the reason it did not match.
// Invariant: after parse, each Signature's arguments are those of its schema, with the
// default of every defaulted argument already converted to an IValue.
#pragma once

#include <nanobind/nanobind.h>

#include <optional>
#include <string>
#include <vector>

#include "dispatch/dispatcher.h"
#include "dispatch/function_schema.h"

namespace tg::python {

namespace nb = nanobind;

struct Signature {
  OperatorHandle op;
  FunctionSchema schema;
  std::vector<std::optional<IValue>> defaults;  // per argument; nullopt: required
  int self_index = -1;       // methods: the argument the tensor binds to
  int varargs_index = -1;    // the one positional int list that may be spread (`zeros(2, 3)`)
  int returns_argument = -1; // the argument whose object a call returns (in-place, out=)
  bool factory = false;
  std::string text;          // "(Tensor self, Tensor other, *, Number alpha=1)" for errors
};

// A call's arguments as the interpreter passes them to a vectorcall: positional `args`, and
// the values of the keywords named in `kwnames` (a tuple, or null) at `kwvalues`.
struct CallArgs {
  PyObject* self;  // the tensor of a method call, or null
  PyObject* const* args;
  size_t nargs;
  PyObject* kwnames;
  PyObject* const* kwvalues;
};

class PythonOperator {
 public:
  PythonOperator(std::string name, bool method) : name_(std::move(name)), method_(method) {}

  // Parses `schema` (throws tg::ValueError on a malformed one) and appends it.
  void add_overload(const char* schema, bool factory);
  // Runs the call.
  nb::object call(const CallArgs& call) const;

  const std::string& name() const { return name_; }

 private:
  // Fills `stack` for `signature`; returns false when the call does not fit it, and then
  // says why in `*why` when `why` is not null.
  bool bind(const Signature& signature, const CallArgs& call, Stack& stack, PyObject** returned,
            bool& requires_grad, std::string* why) const;
  [[noreturn]] void no_match(const CallArgs& call, const std::vector<std::string>& reasons) const;

  std::string name_;
  bool method_;
  std::vector<Signature> overloads_;
};

// Parses the generated signature table and binds every function to `m` and every method
// to `tensor_class`.
void bind_operators(nb::module_& m, nb::handle tensor_class);

// The Python callable of `op` (operator_callable.cpp): a vectorcall object, for a method a
// method descriptor. `op` must outlive it.
nb::object make_operator_callable(const PythonOperator* op, bool method, const char* qualname);

// Sets the Python error for the C++ exception being handled (inside a catch block), as
// nanobind's bindings do: nanobind's exceptions, then tensorgen's translator (module.cpp).
void set_python_error_from_exception() noexcept;
void translate_error(const std::exception_ptr& exception, void*);

}  // namespace tg::python
