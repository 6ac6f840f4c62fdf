// The Tensor class's hand-written members: attributes, autograd, indexing (tensor_type.cpp).
// Its operator methods come from the signature table (python_operator.h).
#pragma once

#include <nanobind/nanobind.h>

#include "core/tensor.h"
#include "tensor_object.h"

namespace tg::python {

namespace nb = nanobind;

void bind_tensor_members(nb::module_& m, nb::class_<Tensor>& cls);

}  // namespace tg::python
