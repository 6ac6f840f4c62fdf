#include "python_types.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include <array>
#include <vector>

#include "core/device.h"
#include "core/scalar_type.h"
#include "core/tensor.h"

namespace tg::python {
namespace {

// One interned object per dtype; filled once by bind_types, read-only afterwards.
std::array<PyObject*, kNumScalarTypes> g_dtypes{};
PyTypeObject* g_dtype_type = nullptr;
PyTypeObject* g_device_type = nullptr;
PyTypeObject* g_tensor_type = nullptr;

bool is_int(PyObject* v) {
  // bool is an int subclass in Python, but PyTorch's int arguments refuse it; NumPy's
  // integers (and anything else with __index__) are accepted.
  if (PyBool_Check(v)) return false;
  if (PyLong_Check(v)) return true;
  return !PyFloat_Check(v) && PyIndex_Check(v) && !PyObject_TypeCheck(v, g_tensor_type);
}

bool read_int(PyObject* v, int64_t& out) {
  long long value = PyLong_AsLongLong(v);
  if (value == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    nb::object index = nb::steal(PyNumber_Index(v));
    if (!index.is_valid()) {
      PyErr_Clear();
      return false;
    }
    value = PyLong_AsLongLong(index.ptr());
    if (value == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;  // out of int64's range: no signature takes it
    }
  }
  out = value;
  return true;
}

bool is_float(PyObject* v) { return PyFloat_Check(v); }

bool to_scalar(PyObject* v, Scalar& out) {
  if (PyBool_Check(v)) {
    out = Scalar(v == Py_True);
    return true;
  }
  int64_t i;
  if (is_int(v) && read_int(v, i)) {
    out = Scalar(i);
    return true;
  }
  if (is_float(v)) {
    out = Scalar(PyFloat_AS_DOUBLE(v));
    return true;
  }
  return false;
}

bool is_sequence(PyObject* v) { return PyList_Check(v) || PyTuple_Check(v); }

template <typename Read>
bool read_sequence(PyObject* v, Read&& read) {
  PyObject* fast = PySequence_Fast(v, "");
  if (!fast) {
    PyErr_Clear();
    return false;
  }
  nb::object owner = nb::steal(fast);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  PyObject** items = PySequence_Fast_ITEMS(fast);
  for (Py_ssize_t i = 0; i < n; ++i)
    if (!read(items[i])) return false;
  return true;
}

bool to_element(BaseType base, PyObject* v, IValue& out) {
  switch (base) {
    case BaseType::Tensor:
      // The instance's Tensor directly (nb::cast looks the type up again); one that
      // Tensor.__new__ made without __init__ holds none.
      if (!PyObject_TypeCheck(v, g_tensor_type) || !nb::inst_ready(v)) return false;
      out = IValue(*nb::inst_ptr<Tensor>(v));
      return true;
    case BaseType::Int:
    case BaseType::SymInt:
    case BaseType::Layout:
    case BaseType::MemoryFormat: {
      int64_t i;
      if (!is_int(v) || !read_int(v, i)) return false;
      out = IValue(i);
      return true;
    }
    case BaseType::Float: {
      if (is_float(v)) {
        out = IValue(PyFloat_AS_DOUBLE(v));
        return true;
      }
      int64_t i;
      if (!is_int(v) || !read_int(v, i)) return false;
      out = IValue(static_cast<double>(i));
      return true;
    }
    case BaseType::Bool:
      if (!PyBool_Check(v)) return false;
      out = IValue(v == Py_True);
      return true;
    case BaseType::Str: {
      if (!PyUnicode_Check(v)) return false;
      Py_ssize_t size;
      const char* text = PyUnicode_AsUTF8AndSize(v, &size);
      if (!text) {
        PyErr_Clear();
        return false;
      }
      out = IValue(std::string(text, static_cast<size_t>(size)));
      return true;
    }
    case BaseType::Scalar: {
      Scalar s;
      if (!to_scalar(v, s)) return false;
      out = IValue(s);
      return true;
    }
    case BaseType::ScalarType:
      if (!PyObject_TypeCheck(v, g_dtype_type)) return false;
      out = IValue(nb::cast<const DType&>(nb::handle(v)).type);
      return true;
    case BaseType::Device:
      if (PyObject_TypeCheck(v, g_device_type)) {
        out = IValue(nb::cast<const Device&>(nb::handle(v)));
        return true;
      }
      if (!PyUnicode_Check(v)) return false;
      // A malformed device text is an error of its own (tg::ValueError), not a mismatch.
      out = IValue(Device(std::string_view(PyUnicode_AsUTF8(v))));
      return true;
    case BaseType::Generator:
      return false;  // only None (the optional case) is accepted
  }
  return false;
}

}  // namespace

bool to_ivalue(const SchemaType& type, PyObject* v, IValue& out) {
  if (v == Py_None) {
    if (!type.optional) return false;
    out = IValue();
    return true;
  }
  if (!type.is_list) return to_element(type.base, v, out);
  // One int for an int[N] stands for N copies (PyTorch's `stride=1`).
  if (type.list_size && (type.base == BaseType::Int || type.base == BaseType::SymInt) && is_int(v)) {
    int64_t i;
    if (!read_int(v, i)) return false;
    out = IValue(std::vector<int64_t>(static_cast<size_t>(*type.list_size), i));
    return true;
  }
  if (!is_sequence(v)) return false;
  switch (type.base) {
    case BaseType::Int:
    case BaseType::SymInt: {
      std::vector<int64_t> values;
      if (!read_sequence(v, [&](PyObject* item) {
            int64_t i;
            if (!is_int(item) || !read_int(item, i)) return false;
            values.push_back(i);
            return true;
          }))
        return false;
      // int[N] is a hint, not a constraint, as in PyTorch: the kernel checks the length.
      out = IValue(std::move(values));
      return true;
    }
    case BaseType::Float: {
      std::vector<double> values;
      if (!read_sequence(v, [&](PyObject* item) {
            IValue element;
            if (!to_element(BaseType::Float, item, element)) return false;
            values.push_back(element.toDouble());
            return true;
          }))
        return false;
      out = IValue(std::move(values));
      return true;
    }
    case BaseType::Bool: {
      std::vector<bool> values;
      if (!read_sequence(v, [&](PyObject* item) {
            if (!PyBool_Check(item)) return false;
            values.push_back(item == Py_True);
            return true;
          }))
        return false;
      if (type.list_size && values.size() != static_cast<size_t>(*type.list_size)) return false;
      out = IValue(std::move(values));
      return true;
    }
    case BaseType::Tensor: {
      if (type.element_optional) {
        std::vector<IValue> values;
        if (!read_sequence(v, [&](PyObject* item) {
              IValue element;
              if (item != Py_None && !to_element(BaseType::Tensor, item, element)) return false;
              values.push_back(std::move(element));
              return true;
            }))
          return false;
        out = IValue(std::move(values));
        return true;
      }
      std::vector<Tensor> values;
      if (!read_sequence(v, [&](PyObject* item) {
            if (!PyObject_TypeCheck(item, g_tensor_type)) return false;
            values.push_back(nb::cast<const Tensor&>(nb::handle(item)));
            return true;
          }))
        return false;
      out = IValue(std::move(values));
      return true;
    }
    default:
      return false;
  }
}

nb::object from_ivalue(const IValue& value) {
  switch (value.tag()) {
    case IValue::Tag::None:
      return nb::none();
    case IValue::Tag::Tensor:
      if (!value.toTensor().defined()) return nb::none();
      return nb::cast(value.toTensor());
    case IValue::Tag::Double:
      return nb::cast(value.toDouble());
    case IValue::Tag::Int:
      return nb::cast(value.toInt());
    case IValue::Tag::Bool:
      return nb::cast(value.toBool());
    case IValue::Tag::String:
      return nb::cast(std::string(value.toStringView()));
    case IValue::Tag::Device:
      return nb::cast(value.toDevice());
    case IValue::Tag::IntList: {
      nb::list list;
      for (int64_t i : value.toIntList()) list.append(i);
      return list;
    }
    case IValue::Tag::DoubleList: {
      nb::list list;
      for (double d : value.toDoubleList()) list.append(d);
      return list;
    }
    case IValue::Tag::BoolList: {
      nb::list list;
      for (bool b : value.toBoolList()) list.append(b);
      return list;
    }
    case IValue::Tag::TensorList: {
      nb::list list;
      for (const Tensor& t : value.toTensorList()) list.append(nb::cast(t));
      return list;
    }
    case IValue::Tag::GenericList: {
      nb::list list;
      for (const IValue& v : value.toList()) list.append(from_ivalue(v));
      return list;
    }
  }
  return nb::none();
}

std::string python_type_name(PyObject* v) {
  if (PyObject_TypeCheck(v, g_tensor_type)) return "Tensor";
  if (PyObject_TypeCheck(v, g_dtype_type)) return "dtype";
  if (PyTuple_Check(v) || PyList_Check(v)) {
    std::string text = PyTuple_Check(v) ? "tuple of (" : "list of [";
    nb::object owner = nb::borrow(v);
    Py_ssize_t n = PySequence_Size(v);
    for (Py_ssize_t i = 0; i < n && i < 4; ++i) {
      nb::object item = nb::steal(PySequence_GetItem(v, i));
      text += (i ? ", " : "") + python_type_name(item.ptr());
    }
    if (n > 4) text += ", ...";
    return text + (PyTuple_Check(v) ? ")" : "]");
  }
  return Py_TYPE(v)->tp_name;
}

std::string python_type_name(const SchemaType& type) {
  std::string name;
  switch (type.base) {
    case BaseType::Scalar: name = "Number"; break;
    case BaseType::ScalarType: name = "dtype"; break;
    case BaseType::SymInt: name = "int"; break;
    case BaseType::Device: name = "device"; break;
    default: name = std::string(base_type_name(type.base));
  }
  if (type.element_optional) name += "?";
  if (type.is_list) name = "tuple of " + name + "s";
  if (type.optional) name += "?";
  return name;
}

nb::object dtype_object(ScalarType type) {
  return nb::borrow(g_dtypes[static_cast<size_t>(type)]);
}

void bind_types(nb::module_& m) {
  g_tensor_type = reinterpret_cast<PyTypeObject*>(nb::type<Tensor>().ptr());
  nb::class_<DType> dtype(m, "dtype");
  dtype.def_prop_ro("is_floating_point", [](const DType& d) { return is_floating_type(d.type); })
      .def_prop_ro("itemsize", [](const DType& d) { return static_cast<int64_t>(element_size(d.type)); })
      .def("__repr__", [](const DType& d) { return "tensorgen." + std::string(to_string(d.type)); })
      .def("__reduce__", [](const DType& d) { return std::string(to_string(d.type)); });
  g_dtype_type = reinterpret_cast<PyTypeObject*>(dtype.ptr());
  for (int i = 0; i < kNumScalarTypes; ++i) {
    auto type = static_cast<ScalarType>(i);
    nb::object object = nb::cast(DType{type});
    g_dtypes[static_cast<size_t>(i)] = object.release().ptr();  // immortal: the module keeps them
    m.attr(std::string(to_string(type)).c_str()) = dtype_object(type);
  }
  // PyTorch's other spellings of the same dtypes.
  m.attr("float") = dtype_object(kFloat);
  m.attr("double") = dtype_object(kDouble);
  m.attr("half") = dtype_object(kHalf);
  m.attr("long") = dtype_object(kLong);
  m.attr("int") = dtype_object(kInt);
  m.attr("short") = dtype_object(kShort);

  nb::class_<Device> device(m, "device");
  device.def(nb::init<std::string_view>(), nb::arg("text"))
      .def("__init__", [](Device* self, std::string_view type, int index) {
             new (self) Device(Device(type).type(), static_cast<Device::Index>(index));
           }, nb::arg("type"), nb::arg("index"))
      .def_prop_ro("type", [](const Device& d) { return std::string(to_string(d.type())); })
      .def_prop_ro("index", [](const Device& d) -> nb::object {
        return d.has_index() ? nb::cast(static_cast<int>(d.index())) : nb::none();
      })
      .def("__eq__", [](const Device& a, const Device& b) { return a == b; })
      .def("__eq__", [](const Device& a, std::string_view b) { return a == Device(b); })
      .def("__hash__", [](const Device& d) { return std::hash<Device>()(d); })
      .def("__str__", &Device::str)
      .def("__repr__", [](const Device& d) { return "device(type='" + d.str() + "')"; });
  g_device_type = reinterpret_cast<PyTypeObject*>(device.ptr());
  nb::implicitly_convertible<std::string_view, Device>();
}

}  // namespace tg::python
