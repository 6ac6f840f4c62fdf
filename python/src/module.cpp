// tensorgen._C: the extension module. Order matters: the Tensor class exists before the
// value types (which recognise it) and before the generated operators (bound onto it).
#include <nanobind/nanobind.h>

#include "core/error.h"
#include "python_operator.h"
#include "python_types.h"
#include "tensor_object.h"
#include "tensor_type.h"

namespace tg::python {
void bind_dlpack(nb::module_& m, nb::class_<Tensor>& cls);
void bind_frontend(nb::module_& m);
void bind_jit(nb::module_& m);
void bind_transforms(nb::module_& m);
}  // namespace tg::python

namespace {

namespace nb = nanobind;

// tensorgen.Error (a RuntimeError) and tensorgen.OutOfMemoryError; created at import.
PyObject* g_error = nullptr;
PyObject* g_out_of_memory = nullptr;

}  // namespace

namespace tg::python {

// tg::Error and its subclasses become the Python exception a PyTorch user expects, with
// the same message (what(): the message and the C++ place that raised it).
void translate_error(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const tg::IndexError& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const tg::ValueError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const tg::TypeError& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const tg::NotImplementedError& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
  } catch (const tg::OutOfMemoryError& e) {
    PyErr_SetString(g_out_of_memory, e.what());
  } catch (const tg::Error& e) {
    PyErr_SetString(g_error, e.what());
  }
}

}  // namespace tg::python

NB_MODULE(_C, m) {
  using namespace tg::python;
  g_error = PyErr_NewException("tensorgen.Error", PyExc_RuntimeError, nullptr);
  g_out_of_memory = PyErr_NewException("tensorgen.OutOfMemoryError", g_error, nullptr);
  m.attr("Error") = nb::handle(g_error);
  m.attr("OutOfMemoryError") = nb::handle(g_out_of_memory);
  nb::register_exception_translator(translate_error);
  // The dtype objects are interned for the life of the process (`t.dtype is tg.float32`),
  // and operator callables hold the signature tables; neither is freed at exit on purpose.
  nb::set_leak_warnings(false);

  nb::class_<tg::Tensor> tensor(m, "Tensor", nb::is_weak_referenceable(), nb::pooled());
  track_tensor_objects(tensor);
  m.def("_num_live_tensor_objects", &num_live_objects);
  bind_types(m);
  bind_tensor_members(m, tensor);
  bind_dlpack(m, tensor);
  bind_operators(m, tensor);
  bind_frontend(m);
  bind_transforms(m);
  bind_jit(m);
}
