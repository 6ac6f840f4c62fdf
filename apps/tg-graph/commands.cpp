#include "commands.h"

#include <charconv>
#include <fstream>
#include <iomanip>
#include <map>

#include "jit/jit.h"
#include "plan_svg.h"
#include "serialize/safetensors.h"
#include "tensorgen/tensorgen.h"

namespace tg::apps {
namespace {

struct Options {
  std::string file;
  std::map<std::string, std::string> flags;  // "--svg" -> "plan.svg"
};

Options parse(const std::vector<std::string>& args, std::initializer_list<std::string_view> known) {
  Options options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) == 0) {
      bool ok = false;
      for (std::string_view k : known) ok = ok || k == a;
      if (!ok) throw UsageError{"unknown option '" + a + "'"};
      if (i + 1 >= args.size()) throw UsageError{"option '" + a + "' needs a value"};
      options.flags[a] = args[++i];
    } else if (options.file.empty()) {
      options.file = a;
    } else {
      throw UsageError{"unexpected argument '" + a + "'"};
    }
  }
  if (options.file.empty()) throw UsageError{"missing the graph file"};
  return options;
}

// "x=64x784,y=10" -> {"x": [64, 784], "y": [10]}; "x=" is a 0-dim tensor.
std::map<std::string, std::vector<int64_t>> parse_shapes(const std::string& text) {
  std::map<std::string, std::vector<int64_t>> shapes;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError{"--shapes: expected NAME=AxB, got '" + item + "'"};
    std::vector<int64_t> sizes;
    const std::string dims = item.substr(eq + 1);
    size_t p = 0;
    while (p < dims.size()) {
      const size_t x = std::min(dims.find('x', p), dims.size());
      int64_t v = -1;
      auto [end, ec] = std::from_chars(dims.data() + p, dims.data() + x, v);
      if (ec != std::errc() || end != dims.data() + x || v < 0) {
        throw UsageError{"--shapes: '" + dims + "' is not sizes like 64x784"};
      }
      sizes.push_back(v);
      p = x + 1;
    }
    shapes[item.substr(0, eq)] = sizes;
    start = comma + 1;
  }
  return shapes;
}

Tensor example_input(const jit::TensorType& type) {
  Tensor t = randn(type.sizes, TensorOptions().dtype(kDouble)).to(TensorOptions().dtype(type.dtype).device(type.device));
  return t;
}

}  // namespace

int show_command(const std::vector<std::string>& args, std::ostream& out) {
  const Options options = parse(args, {});
  const jit::Graph graph = jit::load(options.file);
  out << options.file << ": " << graph.inputs().size() << " inputs, " << graph.nodes().size() << " nodes, "
      << graph.outputs().size() << " outputs\n"
      << graph;
  return 0;
}

int plan_command(const std::vector<std::string>& args, std::ostream& out) {
  const Options options = parse(args, {"--shapes", "--svg"});
  const jit::Graph graph = jit::load(options.file);
  std::map<std::string, std::vector<int64_t>> shapes;
  if (auto it = options.flags.find("--shapes"); it != options.flags.end()) shapes = parse_shapes(it->second);
  std::vector<Tensor> inputs;
  manual_seed(0);
  for (int id : graph.inputs()) {
    jit::TensorType type = graph.type(id);
    if (auto it = shapes.find(graph.name(id)); it != shapes.end()) {
      TG_CHECK(it->second.size() == type.sizes.size(), "[tg-graph plan] input '", graph.name(id), "' has rank ",
               type.sizes.size(), "; --shapes gives ", it->second.size(), " sizes");
      type.sizes = it->second;
      shapes.erase(it);
    }
    inputs.push_back(example_input(type));
  }
  TG_CHECK(shapes.empty(), "[tg-graph plan] --shapes names '", shapes.empty() ? "" : shapes.begin()->first,
           "', which is not an input of the graph");
  jit::StaticModule module(graph);
  module.run(inputs);  // the profiling run plans
  const jit::PlanReport& report = *module.last_plan();
  const auto& managed = *module.last_managed_buffers();
  const double ratio = report.lower_bound > 0 ? static_cast<double>(report.plan.arena_bytes) /
                                                    static_cast<double>(report.lower_bound)
                                              : 1.0;
  out << "nodes " << graph.nodes().size() << '\n'
      << "out_variant_nodes " << module.num_out_variant_nodes() << '\n'
      << "planned_buffers " << managed.size() << '\n'
      << "strategy " << jit::to_string(report.plan.strategy) << '\n';
  for (const jit::MemoryPlan& candidate : report.candidates) {
    out << "arena_" << jit::to_string(candidate.strategy) << " " << candidate.arena_bytes << " bytes\n";
  }
  out << "arena " << report.plan.arena_bytes << " bytes\n"
      << "lower_bound " << report.lower_bound << " bytes\n"
      << "naive_total " << report.naive_total << " bytes\n"
      << "arena_over_lower_bound " << std::fixed << std::setprecision(4) << ratio << '\n'
      << "planning_time " << std::setprecision(3) << report.planning_ms << " ms\n";
  if (auto it = options.flags.find("--svg"); it != options.flags.end()) {
    std::vector<jit::BufferLifetime> lifetimes;
    std::vector<std::string> labels;
    for (const jit::ManagedBuffer& b : managed) {
      lifetimes.push_back(b.lifetime);
      const jit::Node& producer = graph.nodes()[static_cast<size_t>(b.lifetime.first_use)];
      labels.push_back("%" + std::to_string(b.root) + " = " + producer.op);
    }
    std::ofstream svg(it->second);
    TG_CHECK(svg.good(), "[tg-graph plan] cannot write '", it->second, "'");
    svg << plan_svg(lifetimes, report, labels, options.file);
    out << "svg " << it->second << '\n';
  }
  return 0;
}

}  // namespace tg::apps

namespace tg::apps {

int run_command(const std::vector<std::string>& args, std::ostream& out) {
  const Options options = parse(args, {"--inputs", "--out"});
  if (!options.flags.contains("--inputs")) throw UsageError{"run needs --inputs IN.safetensors"};
  if (!options.flags.contains("--out")) throw UsageError{"run needs --out OUT.safetensors"};
  const jit::Graph graph = jit::load(options.file);
  const std::string& inputs_path = options.flags.at("--inputs");
  const serialize::NamedTensors named = serialize::load_tensors(inputs_path);
  std::vector<Tensor> inputs;
  for (int id : graph.inputs()) {
    const std::string& name = graph.name(id);
    const Tensor* found = nullptr;
    for (const auto& [key, tensor] : named) {
      if (key == name) found = &tensor;
    }
    if (found == nullptr) {
      std::string available;
      for (const auto& entry : named) available += (available.empty() ? "" : ", ") + entry.first;
      TG_CHECK(false, "[tg-graph run] '", inputs_path, "' has no tensor named '", name, "' (an input of '",
               options.file, "'); it holds: ", available.empty() ? "nothing" : available);
    }
    inputs.push_back(found->to(TensorOptions().device(graph.type(id).device)));
  }
  jit::StaticModule module(graph);
  const std::vector<Tensor> outputs = module.run(inputs);
  serialize::NamedTensors result;
  for (size_t k = 0; k < outputs.size(); ++k) result.emplace_back("output" + std::to_string(k), outputs[k]);
  serialize::save_tensors(result, options.flags.at("--out"));
  out << "ran " << options.file << " (" << graph.nodes().size() << " nodes); wrote " << outputs.size()
      << " outputs to " << options.flags.at("--out") << '\n';
  return 0;
}

}  // namespace tg::apps
