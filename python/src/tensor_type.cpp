// The Tensor class: attributes, autograd methods, indexing and the Python operators that
// alias the generated methods (`a + b` runs the same callable as `a.add(b)`).
#include <nanobind/nanobind.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>

#include "autograd/node.h"
#include "core/error.h"
#include "indexing/tensor_index.h"
#include "python_types.h"
#include "tensor_type.h"
#include "ops/scalar_tensor.h"
#include "tensorgen/ops.h"

namespace tg::python {
namespace {

using indexing::TensorIndex;

std::optional<int64_t> optional_int(PyObject* v) {
  if (v == Py_None) return std::nullopt;
  return nb::cast<int64_t>(nb::handle(v));
}

TensorIndex to_index(PyObject* v) {
  if (v == Py_None) return TensorIndex(indexing::None);
  if (v == Py_Ellipsis) return TensorIndex(indexing::Ellipsis);
  if (PyBool_Check(v)) return TensorIndex(v == Py_True);
  if (PySlice_Check(v)) {
    auto* s = reinterpret_cast<PySliceObject*>(v);
    return TensorIndex(indexing::Slice(optional_int(s->start), optional_int(s->stop), optional_int(s->step)));
  }
  if (nb::isinstance<Tensor>(nb::handle(v))) return TensorIndex(nb::cast<const Tensor&>(nb::handle(v)));
  if (PyIndex_Check(v)) return TensorIndex(nb::cast<int64_t>(nb::handle(v)));
  if (PyList_Check(v)) {  // a list of ints is an index tensor, as in PyTorch
    std::vector<int64_t> values;
    for (nb::handle item : nb::borrow<nb::list>(v)) {
      TG_CHECK_WITH(TypeError, PyIndex_Check(item.ptr()) && !PyBool_Check(item.ptr()),
                    "[index] a list index must hold ints, got ", python_type_name(item.ptr()));
      values.push_back(nb::cast<int64_t>(item));
    }
    return TensorIndex(tg::tensor(ArrayRef<int64_t>(values)));
  }
  TG_CHECK_WITH(TypeError, false,
                "[index] only integers, slices (`:`), ellipsis (`...`), None, bools, lists of ints and "
                "Tensors are valid indices, got ",
                python_type_name(v));
  __builtin_unreachable();
}

std::vector<TensorIndex> to_indices(nb::handle index) {
  std::vector<TensorIndex> indices;
  if (PyTuple_Check(index.ptr())) {
    for (nb::handle item : nb::borrow<nb::tuple>(index)) indices.push_back(to_index(item.ptr()));
  } else {
    indices.push_back(to_index(index.ptr()));
  }
  return indices;
}

// A Python callable kept by C++ (a hook): released with the GIL held, from any thread.
std::shared_ptr<nb::object> keep(nb::object callable) {
  return std::shared_ptr<nb::object>(new nb::object(std::move(callable)), [](nb::object* object) {
    nb::gil_scoped_acquire gil;
    delete object;
  });
}

struct RemovableHandle {
  Tensor tensor;
  unsigned id;
  void remove() const { tensor.remove_hook(id); }
};

struct GradFn {
  std::shared_ptr<autograd::Node> node;
};

}  // namespace

void bind_tensor_members(nb::module_& m, nb::class_<Tensor>& cls) {
  nb::class_<GradFn>(m, "Node")
      .def("name", [](const GradFn& f) { return f.node->name(); })
      .def("__repr__", [](const GradFn& f) { return "<" + f.node->name() + ">"; });
  nb::class_<RemovableHandle>(m, "RemovableHandle").def("remove", &RemovableHandle::remove);

  // `Tensor.__init__(self, other)` (nn.Parameter's): the new object shares `other`'s TensorImpl
  // and becomes the one conversions return (Note [One Python object per tensor]).
  cls.def("__init__", [](nb::pointer_and_handle<Tensor> self, const Tensor& other) {
         new (self.p) Tensor(other);
         if (other.defined()) record_object(other.unsafeGetTensorImpl(), self.h.ptr());
       }, nb::arg("other"))
      .def_prop_ro("shape", [](const Tensor& t) {
        nb::tuple shape = nb::steal<nb::tuple>(PyTuple_New(t.dim()));
        for (int64_t i = 0; i < t.dim(); ++i) PyTuple_SET_ITEM(shape.ptr(), i, PyLong_FromLongLong(t.sizes()[i]));
        return shape;
      })
      .def("dim", &Tensor::dim)
      .def_prop_ro("ndim", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("element_size", &Tensor::element_size)
      .def("stride", [](const Tensor& t) { return t.strides().vec(); })
      .def("stride", [](const Tensor& t, int64_t dim) { return t.stride(dim); }, nb::arg("dim"))
      .def("storage_offset", &Tensor::storage_offset)
      .def("is_contiguous", [](const Tensor& t) { return t.is_contiguous(); })
      .def("is_pinned", [](const Tensor& t) { return t.is_pinned(); })
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def_prop_ro("dtype", [](const Tensor& t) { return dtype_object(t.scalar_type()); })
      .def_prop_ro("device", [](const Tensor& t) { return t.device(); })
      .def_prop_ro("is_cuda", [](const Tensor& t) { return t.is_cuda(); })
      .def("is_floating_point", [](const Tensor& t) { return t.is_floating_point(); })
      .def_prop_rw("requires_grad", [](const Tensor& t) { return t.requires_grad(); },
                   [](Tensor& t, bool value) { t.requires_grad_(value); })
      .def("requires_grad_", [](nb::handle self, bool value) {
             nb::cast<Tensor&>(self).requires_grad_(value);
             return self;
           }, nb::arg("requires_grad") = true)
      .def_prop_rw("grad",
                   [](const Tensor& t) -> nb::object {
                     const Tensor& g = t.grad();
                     return g.defined() ? nb::cast(g) : nb::none();
                   },
                   [](Tensor& t, std::optional<Tensor> g) { t.mutable_grad() = g ? *g : Tensor(); },
                   nb::arg("value").none())
      .def_prop_ro("is_leaf", &Tensor::is_leaf)
      .def_prop_ro("grad_fn", [](const Tensor& t) -> nb::object {
        const auto& node = t.grad_fn();
        return node ? nb::cast(GradFn{node}) : nb::none();
      })
      .def("backward",
           [](const Tensor& t, std::optional<Tensor> gradient, std::optional<bool> retain_graph, bool create_graph,
              std::optional<std::vector<Tensor>> inputs) {
             nb::gil_scoped_release release;
             std::optional<TensorList> list;
             if (inputs) list = TensorList(*inputs);
             t.backward(gradient ? *gradient : Tensor(), retain_graph, create_graph, list);
           },
           nb::arg("gradient").none() = nb::none(), nb::arg("retain_graph").none() = nb::none(),
           nb::arg("create_graph") = false, nb::arg("inputs").none() = nb::none())
      .def("detach", [](const Tensor& t) { return t.detach(); })
      .def("detach_", [](nb::handle self) {
        nb::cast<Tensor&>(self).detach_();
        return self;
      })
      .def("retain_grad", [](const Tensor& t) { t.retain_grad(); })
      .def_prop_ro("retains_grad", [](const Tensor& t) { return t.retains_grad(); })
      .def("register_hook", [](const Tensor& t, nb::callable hook) {
        auto callable = keep(std::move(hook));
        unsigned id = t._register_hook([callable](const Tensor& grad) -> Tensor {
          nb::gil_scoped_acquire gil;
          nb::object result = (*callable)(grad);
          if (result.is_none()) return Tensor();
          TG_CHECK_WITH(TypeError, nb::isinstance<Tensor>(result),
                        "[register_hook] a hook must return None or a Tensor, got ", python_type_name(result.ptr()));
          return nb::cast<Tensor>(result);
        });
        return RemovableHandle{t, id};
      }, nb::arg("hook"))
      .def("item", [](const Tensor& t) -> nb::object {
        Scalar s = t.item();
        if (s.is_boolean()) return nb::cast(s.toBool());
        if (s.is_integral(false)) return nb::cast(s.toLong());
        return nb::cast(s.toDouble());
      })
      .def("__getitem__", [](const Tensor& t, nb::handle index) {
        std::vector<TensorIndex> indices = to_indices(index);
        return indexing::get_item(t, indices);
      })
      .def("__setitem__", [](const Tensor& t, nb::handle index, nb::handle value) {
        std::vector<TensorIndex> indices = to_indices(index);
        if (nb::isinstance<Tensor>(value)) {
          indexing::set_item(t, indices, nb::cast<const Tensor&>(value));
          return;
        }
        IValue scalar;
        SchemaType scalar_type;
        scalar_type.base = BaseType::Scalar;
        TG_CHECK_WITH(TypeError, to_ivalue(scalar_type, value.ptr(), scalar),
                      "[index_put_] the value assigned must be a Tensor or a number, got ",
                      python_type_name(value.ptr()));
        indexing::set_item(t, indices, tg::scalar_tensor(scalar.toScalar(), t.scalar_type(), t.device()));
      })
      .def("__len__", [](const Tensor& t) {
        TG_CHECK_WITH(TypeError, t.dim() > 0, "[len] len() of a 0-d tensor");
        return t.size(0);
      })
      .def("set_data", [](const Tensor& t, const Tensor& data) { t.set_data(data); }, nb::arg("data"))
      .def("_str", [](const Tensor& t) { return t.toString(); });
}

}  // namespace tg::python
