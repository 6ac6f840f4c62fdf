// The Python-visible value types besides Tensor: dtype (one interned object per ScalarType,
// so `t.dtype is tg.float32` holds) and the conversions of Python values to and from the
// boxed IValues the dispatcher takes. A conversion never throws for a value of the wrong
// kind: it returns false, so overload resolution can try the next signature.
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#include "core/ivalue.h"
#include "dispatch/function_schema.h"
#include "tensor_object.h"

namespace tg::python {

namespace nb = nanobind;

// A dtype object: Python's view of a ScalarType.
struct DType {
  ScalarType type;
};

// The interned dtype object of `type` (created by bind_types).
nb::object dtype_object(ScalarType type);
// Registers dtype and device and the module attributes float32, int64, ...
void bind_types(nb::module_& m);

// Converts `value` to the IValue an argument of `type` takes; false when it is of another kind.
bool to_ivalue(const SchemaType& type, PyObject* value, IValue& out);
// An IValue returned by an operator, as a Python object.
nb::object from_ivalue(const IValue& value);
// The short name of a Python value's type, for error messages ("Tensor", "int", "str").
std::string python_type_name(PyObject* value);
// The schema's element type as a Python user reads it ("Tensor", "int", "Number", "dtype").
std::string python_type_name(const SchemaType& type);

}  // namespace tg::python
