// The frontend pieces bound from C++: grad mode, tg.autograd.grad, the optimizers (one
// generic constructor over the C++ classes, options by name), safetensors save/load, seeding.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <memory>

#include "autograd/autograd.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/generator.h"
#include "optim/optim.h"
#include "serialize/safetensors.h"

namespace tg::python {
namespace {

namespace nb = nanobind;

std::unique_ptr<optim::Optimizer> make_optimizer(const std::string& kind, std::vector<Tensor> params,
                                                 const std::map<std::string, double>& options) {
  std::unique_ptr<optim::Optimizer> result;
  if (kind == "SGD") {
    auto lr = options.find("lr");
    TG_CHECK_WITH(TypeError, lr != options.end(), "[SGD] the learning rate `lr` is required");
    result = std::make_unique<optim::SGD>(std::move(params), optim::SGDOptions(lr->second));
  } else if (kind == "Adam") {
    result = std::make_unique<optim::Adam>(std::move(params));
  } else if (kind == "AdamW") {
    result = std::make_unique<optim::AdamW>(std::move(params));
  } else if (kind == "Adagrad") {
    result = std::make_unique<optim::Adagrad>(std::move(params));
  } else if (kind == "RMSprop") {
    result = std::make_unique<optim::RMSprop>(std::move(params));
  } else {
    TG_CHECK_WITH(ValueError, false, "[optim] unknown optimizer '", kind, "': expected SGD, Adam, AdamW, Adagrad or RMSprop");
  }
  for (auto& group : result->param_groups())
    for (const auto& [name, value] : options) {
      if (group.options().set_value(name, value)) continue;
      std::string known;
      for (const auto& [field, v] : group.options().values()) known += (known.empty() ? "" : ", ") + field;
      TG_CHECK_WITH(TypeError, false, "[", kind, "] unknown option '", name, "'; its options are: ", known);
    }
  for (const auto& [name, value] : options) result->defaults().set_value(name, value);
  return result;
}

}  // namespace

void bind_frontend(nb::module_& m) {
  m.def("is_grad_enabled", &GradMode::is_enabled);
  m.def("_set_grad_enabled", &GradMode::set_enabled, nb::arg("enabled"));
  m.def("manual_seed", [](uint64_t seed) { tg::manual_seed(seed); }, nb::arg("seed"));
  m.def("_autograd_grad",
        [](std::vector<Tensor> outputs, std::vector<Tensor> inputs, std::vector<std::optional<Tensor>> grad_outputs,
           std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
          autograd::variable_list grads;
          for (auto& g : grad_outputs) grads.push_back(g ? *g : Tensor());
          autograd::variable_list result;
          {
            nb::gil_scoped_release release;
            result = autograd::grad(outputs, inputs, grads, retain_graph, create_graph, allow_unused);
          }
          std::vector<std::optional<Tensor>> out;
          for (auto& t : result) out.push_back(t.defined() ? std::optional<Tensor>(t) : std::nullopt);
          return out;
        },
        nb::arg("outputs"), nb::arg("inputs"), nb::arg("grad_outputs"), nb::arg("retain_graph").none(),
        nb::arg("create_graph"), nb::arg("allow_unused"));
  m.def("_autograd_backward",
        [](std::vector<Tensor> tensors, std::vector<std::optional<Tensor>> grad_tensors, std::optional<bool> retain_graph,
           bool create_graph) {
          autograd::variable_list grads;
          for (auto& g : grad_tensors) grads.push_back(g ? *g : Tensor());
          nb::gil_scoped_release release;
          autograd::backward(tensors, grads, retain_graph, create_graph);
        },
        nb::arg("tensors"), nb::arg("grad_tensors"), nb::arg("retain_graph").none(), nb::arg("create_graph"));

  nb::class_<optim::Optimizer>(m, "_Optimizer")
      .def("step", [](optim::Optimizer& o) {
        nb::gil_scoped_release release;
        o.step();
      })
      .def("zero_grad", &optim::Optimizer::zero_grad, nb::arg("set_to_none") = true)
      .def_prop_ro("name", &optim::Optimizer::name)
      .def("num_groups", [](const optim::Optimizer& o) { return o.param_groups().size(); })
      .def("group_params", [](const optim::Optimizer& o, size_t i) { return o.param_groups().at(i).params(); })
      .def("group_options", [](const optim::Optimizer& o, size_t i) {
        std::map<std::string, double> values;
        for (const auto& [name, value] : o.param_groups().at(i).options().values()) values[name] = value;
        return values;
      })
      .def("set_group_option", [](optim::Optimizer& o, size_t i, const std::string& name, double value) {
        TG_CHECK_WITH(ValueError, o.param_groups().at(i).options().set_value(name, value),
                      "[", o.name(), "] unknown option '", name, "'");
      })
      .def("save", &optim::Optimizer::save, nb::arg("path"))
      .def("load", &optim::Optimizer::load, nb::arg("path"));
  m.def("_make_optimizer", &make_optimizer, nb::arg("kind"), nb::arg("params"), nb::arg("options"));

  m.def("_save_tensors",
        [](const std::vector<std::pair<std::string, Tensor>>& tensors, const std::string& path,
           const std::map<std::string, std::string>& metadata) { serialize::save_tensors(tensors, path, metadata); },
        nb::arg("tensors"), nb::arg("path"), nb::arg("metadata"));
  m.def("_load_tensors", [](const std::string& path) { return serialize::load_tensors(path); }, nb::arg("path"));
}

}  // namespace tg::python
