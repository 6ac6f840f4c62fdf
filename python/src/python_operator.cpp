#include "python_operator.h"

#include <nanobind/stl/string.h>

#include <algorithm>
#include <map>
#include <memory>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/tensor.h"
#include "dispatch/schema_parser.h"
#include "dispatch/schema_values.h"
#include "python_types.h"
#include "signature_table.h"

// Note [Overload resolution]
// PyTorch's python_arg_parser tries a name's signatures in a fixed order and takes the first
// that every argument fits; so does this parser, in the schemas' declaration order (add.Tensor
// before add.Scalar, so `add(t, u)` never reaches the Scalar overload, and `add(t, 2)` falls
// through to it, since an int is not a Tensor). Kinds are checked strictly as PyTorch does: a
// bool is not an int, an int is a float, a single int is an int[N]. An overload with an out=
// argument matches only when out= is given, because the argument has no default.

namespace tg::python {
namespace {

std::string display_default(const Argument& argument) { return *argument.default_value; }

std::string signature_text(const FunctionSchema& schema, int self_index) {
  std::string text = "(";
  bool first = true, star = false;
  for (size_t i = 0; i < schema.arguments.size(); ++i) {
    if (static_cast<int>(i) == self_index) continue;
    const Argument& a = schema.arguments[i];
    if (!first) text += ", ";
    if (a.kwarg_only && !star) {
      text += "*, ";
      star = true;
    }
    text += python_type_name(a.type) + " " + a.name;
    if (a.default_value) text += "=" + display_default(a);
    first = false;
  }
  return text + ")";
}

int find_argument(const Signature& s, std::string_view name) {
  for (size_t i = 0; i < s.schema.arguments.size(); ++i)
    if (s.schema.arguments[i].name == name) return static_cast<int>(i);
  return -1;
}

// A Stack per call without an allocation per call: calls reuse the stacks of earlier ones
// (a call can nest in another, through a hook, so each takes its own). Calls from Python hold
// the GIL, which guards the pool (a thread_local would cost a __tls_get_addr per access in a
// dlopen'ed library).
struct StackLease {
  StackLease() {
    if (!spare().empty()) {
      stack = std::move(spare().back());
      spare().pop_back();
    }
  }
  ~StackLease() {
    stack.clear();
    if (spare().size() < 8) spare().push_back(std::move(stack));
  }
  StackLease(const StackLease&) = delete;
  StackLease& operator=(const StackLease&) = delete;
  static std::vector<Stack>& spare() {
    static auto* stacks = new std::vector<Stack>();  // kept for the process, as the operators
    return *stacks;
  }
  Stack stack;
};

}  // namespace

void PythonOperator::add_overload(const char* schema_text, bool factory) {
  Signature s{Dispatcher::singleton().findSchemaOrThrow("tg::" + parse_schema(schema_text).operator_name()),
              parse_schema(schema_text), {}, -1, -1, -1, factory, ""};
  const auto& args = s.schema.arguments;
  for (const Argument& a : args)
    s.defaults.push_back(a.default_value ? std::optional<IValue>(default_ivalue(a)) : std::nullopt);
  if (method_) s.self_index = find_argument(s, "self");
  TG_CHECK(!method_ || s.self_index >= 0, "[", name_, "] a method's schema needs a `self` argument: ", schema_text);
  // The positional int list of a signature whose only positional argument it is may be
  // spread: t.view(2, 3), zeros(2, 3).
  std::vector<int> positional;
  for (size_t i = 0; i < args.size(); ++i)
    if (!args[i].kwarg_only && static_cast<int>(i) != s.self_index) positional.push_back(static_cast<int>(i));
  if (positional.size() == 1) {
    const SchemaType& t = args[static_cast<size_t>(positional[0])].type;
    if (t.is_list && (t.base == BaseType::Int || t.base == BaseType::SymInt)) s.varargs_index = positional[0];
  }
  // An in-place or out= overload returns the object it wrote to, as PyTorch does.
  if (s.schema.returns.size() == 1 && s.schema.returns[0].type.alias && s.schema.returns[0].type.alias->is_write)
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].type.alias == s.schema.returns[0].type.alias) s.returns_argument = static_cast<int>(i);
  s.text = signature_text(s.schema, s.self_index);
  overloads_.push_back(std::move(s));
}

bool PythonOperator::bind(const Signature& s, const CallArgs& call, Stack& stack, PyObject** returned,
                          bool& requires_grad, std::string* why) const {
  // The reason is built only when asked for (after no overload matched): the fast path
  // makes no strings.
  auto fail = [why](auto&& reason) {
    if (why) *why = reason();
    return false;
  };
  const auto& schema_args = s.schema.arguments;
  const size_t n = schema_args.size();
  PyObject* slots[64];
  if (n > 64) return fail([&] { return std::string("too many arguments"); });
  std::fill_n(slots, n, nullptr);
  if (s.self_index >= 0) slots[s.self_index] = call.self;
  PyObject* const* args = call.args;
  size_t nargs = call.nargs;
  // Positional arguments.
  size_t next = 0;
  auto next_positional = [&]() -> int {
    while (next < n && (schema_args[next].kwarg_only || static_cast<int>(next) == s.self_index)) ++next;
    return next < n ? static_cast<int>(next++) : -1;
  };
  nb::object spread;  // keeps the tuple of spread ints alive
  if (s.varargs_index >= 0 && nargs >= 1) {
    bool all_ints = true;
    for (size_t i = 0; i < nargs; ++i) all_ints = all_ints && PyIndex_Check(args[i]) && !PyBool_Check(args[i]);
    if (all_ints) {
      spread = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(nargs)));
      for (size_t i = 0; i < nargs; ++i) PyTuple_SET_ITEM(spread.ptr(), i, Py_NewRef(args[i]));
      slots[s.varargs_index] = spread.ptr();
      nargs = 0;
    }
  }
  for (size_t i = 0; i < nargs; ++i) {
    int slot = next_positional();
    if (slot < 0) {
      size_t takes = 0;
      for (size_t j = 0; j < n; ++j) takes += !schema_args[j].kwarg_only && static_cast<int>(j) != s.self_index;
      return fail([&] { return std::string("takes " + std::to_string(takes) + " positional arguments but " + std::to_string(nargs) + " were given"); });
    }
    slots[slot] = args[i];
  }
  // Keyword arguments.
  const Py_ssize_t nkwargs = call.kwnames ? PyTuple_GET_SIZE(call.kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkwargs; ++k) {
    PyObject* value = call.kwvalues[k];
    const char* name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(call.kwnames, k));
    if (!name) {
      PyErr_Clear();
      return fail([&] { return std::string("keyword names must be strings"); });
    }
    std::string_view key_name(name);
    if (s.factory && key_name == "requires_grad") {
      if (!PyBool_Check(value)) return fail([&] { return std::string("argument 'requires_grad' must be bool, not " + python_type_name(value)); });
      requires_grad = value == Py_True;
      continue;
    }
    int slot = find_argument(s, key_name);
    // `from_` for a schema argument named by a Python keyword (`from`), as in PyTorch.
    if (slot < 0 && key_name.size() > 1 && key_name.back() == '_') slot = find_argument(s, key_name.substr(0, key_name.size() - 1));
    if (slot < 0 || slot == s.self_index) return fail([&] { return std::string("got an unexpected keyword argument '" + std::string(key_name) + "'"); });
    if (slots[slot]) return fail([&] { return std::string("got multiple values for argument '" + std::string(key_name) + "'"); });
    slots[slot] = value;
  }
  // Conversion, and defaults for what was not given.
  stack.clear();
  stack.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const Argument& a = schema_args[i];
    if (!slots[i]) {
      if (!s.defaults[i]) return fail([&] { return std::string("missing required argument '" + a.name + "'"); });
      stack.push_back(*s.defaults[i]);
      continue;
    }
    IValue value;
    if (!to_ivalue(a.type, slots[i], value))
      return fail([&] { return std::string("argument '" + a.name + "' must be " + python_type_name(a.type) + ", not " + python_type_name(slots[i])); });
    stack.push_back(std::move(value));
  }
  *returned = s.returns_argument >= 0 ? slots[s.returns_argument] : nullptr;
  return true;
}

nb::object PythonOperator::call(const CallArgs& call) const {
  StackLease lease;
  Stack& stack = lease.stack;
  for (const Signature& s : overloads_) {
    PyObject* returned = nullptr;
    bool requires_grad = false;
    if (!bind(s, call, stack, &returned, requires_grad, nullptr)) continue;
    // The GIL stays held: an operator runs no Python code, and what could (hooks, DLPack
    // deleters) takes the GIL itself. See Note [The GIL] in docs/python.md.
    s.op.callBoxed(stack);
    if (returned) return nb::borrow(returned);
    if (stack.size() == 1) {
      // The result's Tensor is moved into its Python object (no reference-count round trip).
      nb::object result = stack[0].isTensor() && stack[0].toTensor().defined() ? nb::cast(std::move(stack[0]).toTensor())
                                                                                 : from_ivalue(stack[0]);
      if (requires_grad) nb::cast<Tensor&>(result).requires_grad_(true);
      return result;
    }
    nb::list results;
    for (const IValue& v : stack) results.append(from_ivalue(v));
    return nb::tuple(results);
  }
  std::vector<std::string> reasons;
  for (const Signature& s : overloads_) {
    PyObject* returned = nullptr;
    bool requires_grad = false;
    reasons.emplace_back();
    bind(s, call, stack, &returned, requires_grad, &reasons.back());
  }
  no_match(call, reasons);
}

void PythonOperator::no_match(const CallArgs& call, const std::vector<std::string>& reasons) const {
  std::string got;
  for (size_t i = 0; i < call.nargs; ++i) got += (i ? ", " : "") + python_type_name(call.args[i]);
  const Py_ssize_t nkwargs = call.kwnames ? PyTuple_GET_SIZE(call.kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkwargs; ++k) {
    PyObject* key = PyTuple_GET_ITEM(call.kwnames, k);
    got += (got.empty() ? "" : ", ") + std::string(PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : "?") + "=" +
           python_type_name(call.kwvalues[k]);
  }
  std::string message = "[" + name_ + "] " + (call.self ? "Tensor." : "") + name_ +
                        "() received an invalid combination of arguments - got (" + got +
                        "), but expected one of:";
  for (size_t i = 0; i < overloads_.size(); ++i)
    message += "\n * " + overloads_[i].text + "\n      didn't match because: " + reasons[i];
  throw nb::type_error(message.c_str());
}

void bind_operators(nb::module_& m, nb::handle tensor_class) {
  // name -> operator, functions and methods apart; kept alive for the process (the bound
  // callables hold raw pointers to them).
  static auto* functions = new std::map<std::string, std::unique_ptr<PythonOperator>>();
  static auto* methods = new std::map<std::string, std::unique_ptr<PythonOperator>>();
  for (size_t i = 0; i < kNumSignatureRows; ++i) {
    const SignatureRow& row = kSignatureRows[i];
    auto& table = row.method ? *methods : *functions;
    auto& slot = table[row.python_name];
    if (!slot) slot = std::make_unique<PythonOperator>(row.python_name, row.method);
    slot->add_overload(row.schema, row.factory);
  }
  for (auto& [name, op] : *functions)
    nb::setattr(m, name.c_str(), make_operator_callable(op.get(), false, name.c_str()));
  for (auto& [name, op] : *methods)
    nb::setattr(tensor_class, name.c_str(), make_operator_callable(op.get(), true, ("Tensor." + name).c_str()));
  // Python's operators run the generated methods themselves (no Python frame in between).
  static const std::pair<const char*, const char*> kOperatorAliases[] = {
      {"__add__", "add"},       {"__radd__", "add"},      {"__iadd__", "add_"},     {"__sub__", "sub"},
      {"__isub__", "sub_"},     {"__mul__", "mul"},       {"__rmul__", "mul"},      {"__imul__", "mul_"},
      {"__truediv__", "div"},   {"__itruediv__", "div_"}, {"__matmul__", "matmul"}, {"__neg__", "neg"},
      {"__abs__", "abs"},       {"__pow__", "pow"},       {"__ipow__", "pow_"},     {"__lt__", "lt"},
      {"__le__", "le"},         {"__gt__", "gt"},         {"__ge__", "ge"},
  };
  for (const auto& [dunder, method] : kOperatorAliases)
    if (methods->count(method)) nb::setattr(tensor_class, dunder, nb::getattr(tensor_class, method));
}

}  // namespace tg::python
