// Thin entry points to the function transforms (tg::func, docs/transforms.md) for Python
// callables; tensorgen/func.py gives them torch.func's signatures. A Python function becomes
// a TensorFn that takes the GIL for its call (the transforms call it on this thread).
#include <nanobind/nanobind.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include "core/error.h"
#include "functorch/transforms.h"
#include "python_types.h"

namespace tg::python {
namespace {

namespace nb = nanobind;

func::TensorFn tensor_fn(nb::callable f) {
  auto keep = std::make_shared<nb::object>(std::move(f));
  return [keep](const std::vector<Tensor>& args) -> Tensor {
    nb::gil_scoped_acquire gil;
    nb::list list;
    for (const Tensor& t : args) list.append(nb::cast(t));
    nb::object result = (*keep)(*nb::tuple(list));
    TG_CHECK_WITH(TypeError, nb::isinstance<Tensor>(result),
                  "[func] the transformed function must return one Tensor, got ", python_type_name(result.ptr()));
    return nb::cast<Tensor>(result);
  };
}

}  // namespace

void bind_transforms(nb::module_& m) {
  m.def("_func_grad_and_value", [](nb::callable f, std::vector<Tensor> args, int64_t argnum) {
    return func::detail::grad_and_value(tensor_fn(std::move(f)), std::move(args), argnum);
  });
  m.def("_func_vjp", [](nb::callable f, std::vector<Tensor> primals) {
    func::VjpResult result = func::detail::vjp(tensor_fn(std::move(f)), std::move(primals));
    return std::make_pair(result.output, result.vjp_fn);
  });
  m.def("_func_jvp", [](nb::callable f, std::vector<Tensor> primals, std::vector<Tensor> tangents) {
    return func::detail::jvp(tensor_fn(std::move(f)), std::move(primals), std::move(tangents));
  });
  m.def("_func_jacrev", [](nb::callable f, std::vector<Tensor> args, int64_t argnum) {
    return func::detail::jacrev(tensor_fn(std::move(f)), std::move(args), argnum);
  });
  m.def("_func_jacfwd", [](nb::callable f, std::vector<Tensor> args, int64_t argnum) {
    return func::detail::jacfwd(tensor_fn(std::move(f)), std::move(args), argnum);
  });
  m.def("_func_vmap", [](nb::callable f, std::vector<Tensor> args, std::vector<std::optional<int64_t>> in_dims,
                         int64_t out_dim, std::optional<int64_t> chunk_size) {
    return func::detail::vmap(tensor_fn(std::move(f)), std::move(args), in_dims, out_dim, chunk_size);
  }, nb::arg("f"), nb::arg("args"), nb::arg("in_dims"), nb::arg("out_dim"), nb::arg("chunk_size").none());
}

}  // namespace tg::python
