// The Python callables of the generated operators: a type of their own with vectorcall, so a
// call reaches PythonOperator::call with the arguments as the interpreter holds them (nanobind's
// `*args, **kwargs` functions build a tuple and a dict per call). Methods are a second type
// flagged as method descriptors, so `t.add(u)`, and `a + b` through the type's number slot,
// call them with the tensor prepended and no bound method is made, as for CPython's own
// method descriptors. See Note [Binding overhead] in docs/python.md.
#include "python_operator.h"

#include <structmember.h>  // after Python.h (through nanobind)

#include <new>

#include "core/error.h"

namespace tg::python {
namespace {

struct OperatorCallable {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  const PythonOperator* op;
  bool method;
  PyObject* qualname;  // "add" or "Tensor.add"
};

PyObject* call_operator(PyObject* callable, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* self = reinterpret_cast<OperatorCallable*>(callable);
  size_t nargs = PyVectorcall_NARGS(nargsf);
  CallArgs call{nullptr, args, nargs, kwnames, args + nargs};
  if (self->method) {
    if (nargs == 0) {
      PyErr_Format(PyExc_TypeError, "[%s] descriptor '%s' of 'Tensor' object needs an argument",
                   self->op->name().c_str(), self->op->name().c_str());
      return nullptr;
    }
    call.self = args[0];
    call.args = args + 1;
    call.nargs = nargs - 1;
  }
  try {
    return self->op->call(call).release().ptr();
  } catch (...) {
    set_python_error_from_exception();
    return nullptr;
  }
}

void callable_dealloc(PyObject* object) {
  auto* self = reinterpret_cast<OperatorCallable*>(object);
  PyTypeObject* type = Py_TYPE(object);
  Py_XDECREF(self->qualname);
  type->tp_free(object);
  Py_DECREF(type);
}

PyObject* method_get(PyObject* self, PyObject* instance, PyObject*) {
  if (!instance || instance == Py_None) return Py_NewRef(self);
  return PyMethod_New(self, instance);
}

PyObject* get_name(PyObject* object, void*) {
  return PyUnicode_FromString(reinterpret_cast<OperatorCallable*>(object)->op->name().c_str());
}

PyObject* get_qualname(PyObject* object, void*) {
  return Py_NewRef(reinterpret_cast<OperatorCallable*>(object)->qualname);
}

PyObject* callable_repr(PyObject* object) {
  auto* self = reinterpret_cast<OperatorCallable*>(object);
  if (self->method) return PyUnicode_FromFormat("<method '%s' of 'tensorgen.Tensor' objects>", self->op->name().c_str());
  return PyUnicode_FromFormat("<built-in function %U>", self->qualname);
}

PyMemberDef callable_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(OperatorCallable, vectorcall), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

PyGetSetDef callable_getset[] = {
    {"__name__", get_name, nullptr, nullptr, nullptr},
    {"__qualname__", get_qualname, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyTypeObject* make_type(bool method) {
  static PyType_Slot function_slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(callable_dealloc)},
      {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
      {Py_tp_repr, reinterpret_cast<void*>(callable_repr)},
      {Py_tp_members, callable_members},
      {Py_tp_getset, callable_getset},
      {0, nullptr},
  };
  static PyType_Slot method_slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(callable_dealloc)},
      {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
      {Py_tp_repr, reinterpret_cast<void*>(callable_repr)},
      {Py_tp_members, callable_members},
      {Py_tp_getset, callable_getset},
      {Py_tp_descr_get, reinterpret_cast<void*>(method_get)},
      {0, nullptr},
  };
  static PyType_Spec function_spec = {"tensorgen._C.builtin_operator", sizeof(OperatorCallable), 0,
                                      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL, function_slots};
  static PyType_Spec method_spec = {"tensorgen._C.method_operator", sizeof(OperatorCallable), 0,
                                    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
                                    method_slots};
  PyObject* type = PyType_FromSpec(method ? &method_spec : &function_spec);
  if (!type) throw nb::python_error();
  return reinterpret_cast<PyTypeObject*>(type);
}

}  // namespace

nb::object make_operator_callable(const PythonOperator* op, bool method, const char* qualname) {
  // Kept for the process, as the operators are (bind_operators).
  static PyTypeObject* function_type = make_type(false);
  static PyTypeObject* method_type = make_type(true);
  PyTypeObject* type = method ? method_type : function_type;
  auto* self = PyObject_New(OperatorCallable, type);
  if (!self) throw nb::python_error();
  self->vectorcall = call_operator;
  self->op = op;
  self->method = method;
  self->qualname = PyUnicode_FromString(qualname);
  nb::object result = nb::steal(reinterpret_cast<PyObject*>(self));
  if (!self->qualname) throw nb::python_error();
  return result;
}

void set_python_error_from_exception() noexcept {
  try {
    throw;
  } catch (nb::python_error& e) {
    e.restore();
  } catch (const nb::builtin_exception& e) {
    PyObject* type = PyExc_RuntimeError;
    switch (e.type()) {
      case nb::exception_type::type_error: type = PyExc_TypeError; break;
      case nb::exception_type::value_error: type = PyExc_ValueError; break;
      case nb::exception_type::index_error: type = PyExc_IndexError; break;
      case nb::exception_type::key_error: type = PyExc_KeyError; break;
      case nb::exception_type::attribute_error: type = PyExc_AttributeError; break;
      default: break;
    }
    PyErr_SetString(type, e.what());
  } catch (...) {
    try {
      translate_error(std::current_exception(), nullptr);  // tg::Error and its subclasses
    } catch (const std::bad_alloc&) {
      PyErr_NoMemory();
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (...) {
      PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
    }
  }
}

}  // namespace tg::python
