// Thin entry points to the program level (runtime/jit, docs/graph.md) for Python callables:
// trace a function into a jit::Graph, save and load its YAML, run it on the static runtime.
// tensorgen/jit.py gives them torch.jit-like signatures.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "core/error.h"
#include "jit/graph_yaml.h"
#include "jit/static/static_module.h"
#include "jit/tracer.h"
#include "python_types.h"

namespace tg::python {
namespace {

namespace nb = nanobind;

// The traced function is called once, on this thread, with the GIL held throughout (the
// tracer's state is thread-local). A Python exception it raises unwinds the tracer and
// reaches the caller unchanged.
jit::TracedFunction traced_function(nb::callable fn) {
  return [fn = std::move(fn)](const std::vector<Tensor>& inputs) -> std::vector<Tensor> {
    nb::list args;
    for (const Tensor& t : inputs) args.append(nb::cast(t));
    nb::object result = fn(*nb::tuple(args));
    if (nb::isinstance<Tensor>(result)) return {nb::cast<Tensor>(result)};
    bool tensors = PyTuple_Check(result.ptr()) || PyList_Check(result.ptr());
    std::vector<Tensor> outputs;
    if (tensors)
      for (nb::handle item : result) {
        tensors = tensors && nb::isinstance<Tensor>(item);
        if (tensors) outputs.push_back(nb::cast<Tensor>(item));
      }
    TG_CHECK_WITH(TypeError, tensors && !outputs.empty(),
                  "[jit.trace] the traced function must return a Tensor or a tuple or list of Tensors, got ",
                  python_type_name(result.ptr()));
    return outputs;
  };
}

}  // namespace

void bind_jit(nb::module_& m) {
  nb::class_<jit::Graph>(m, "_JitGraph")
      .def("save", &jit::Graph::save, nb::arg("path"))
      .def("to_yaml", &jit::Graph::to_yaml)
      .def("__eq__", [](const jit::Graph& a, const jit::Graph& b) { return a == b; })
      .def_prop_ro("input_names", [](const jit::Graph& g) {
        std::vector<std::string> names;
        for (int id : g.inputs()) names.push_back(g.name(id));
        return names;
      })
      .def_prop_ro("num_outputs", [](const jit::Graph& g) { return g.outputs().size(); })
      .def_prop_ro("node_ops", [](const jit::Graph& g) {
        std::vector<std::string> ops;
        for (const jit::Node& node : g.nodes()) ops.push_back(node.op);
        return ops;
      });
  m.def("_jit_trace", [](nb::callable fn, const std::vector<Tensor>& inputs, const std::vector<std::string>& names) {
    return jit::trace(traced_function(std::move(fn)), inputs, names);
  }, nb::arg("fn"), nb::arg("inputs"), nb::arg("input_names"));
  m.def("_jit_load", &jit::load, nb::arg("path"));
  nb::class_<jit::StaticModule>(m, "_JitStaticModule")
      .def(nb::init<jit::Graph>(), nb::arg("graph"))
      // The GIL stays held: run() mutates the plan cache, one thread at a time per module.
      .def("run", &jit::StaticModule::run, nb::arg("inputs"))
      .def_prop_ro("graph", [](const jit::StaticModule& module) { return module.graph(); })
      .def_prop_ro("num_plans", &jit::StaticModule::num_plans)
      .def_prop_ro("num_out_variant_nodes", &jit::StaticModule::num_out_variant_nodes);
}

}  // namespace tg::python
