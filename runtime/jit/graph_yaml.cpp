#include "jit/graph_yaml.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "core/checked_math.h"
#include "core/error.h"
#include "core/suggest.h"
#include "dispatch/dispatcher.h"
#include "dispatch/schema_values.h"
#include "jit/passes/lint.h"
#include "ops/scalar_tensor.h"
#include "tensorgen/ops.h"

namespace tg::jit {

// Note [Graph file layout]
//   format: tensorgen-graph/1
//   inputs:
//     - {name: x, value: "%0", dtype: float32, sizes: [2, 4], device: cpu}
//   nodes:
//     - op: tg::addmm
//       args: {self: "%1", mat1: "%0", mat2: "%2", beta: 1, alpha: 1}
//       outputs: [{value: "%3", dtype: float32, sizes: [2, 8], device: cpu}]
//   outputs: ["%3"]
// Arguments are keyed by their schema names, so a reader sees what each one is. Tensors are
// value references "%N"; a Tensor[] is a list of them; None is null. ScalarType arguments
// are dtype names ("float32"); a float or a Scalar holding a double is written with a
// decimal point or exponent ("1.0"), so that it reads back as a double and not an int.

namespace {

constexpr std::string_view kFormat = "tensorgen-graph/1";

// ---- writing ----

std::string value_ref(int id) { return "%" + std::to_string(id); }

std::string double_text(double d) {
  if (std::isnan(d)) return ".nan";
  if (std::isinf(d)) return d > 0 ? ".inf" : "-.inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d);
  std::string s(buf, end);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

void emit_type(YAML::Emitter& out, const TensorType& type) {
  out << YAML::Key << "dtype" << YAML::Value << std::string(to_string(type.dtype));
  out << YAML::Key << "sizes" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (int64_t s : type.sizes) out << s;
  out << YAML::EndSeq;
  out << YAML::Key << "device" << YAML::Value << type.device.str();
}

void emit_constant(YAML::Emitter& out, const SchemaType& type, const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None:
      out << YAML::Null;
      return;
    case IValue::Tag::Double:
      out << double_text(v.toDouble());
      return;
    case IValue::Tag::Int:
      if (type.base == BaseType::ScalarType && !type.is_list) {
        out << std::string(to_string(v.toScalarType()));
      } else {
        out << v.toInt();
      }
      return;
    case IValue::Tag::Bool:
      out << v.toBool();
      return;
    case IValue::Tag::String:
      out << YAML::DoubleQuoted << std::string(v.toStringView());
      return;
    case IValue::Tag::Device:
      out << v.toDevice().str();
      return;
    case IValue::Tag::IntList:
      out << YAML::Flow << YAML::BeginSeq;
      for (int64_t x : v.toIntList()) out << x;
      out << YAML::EndSeq;
      return;
    case IValue::Tag::DoubleList:
      out << YAML::Flow << YAML::BeginSeq;
      for (double x : v.toDoubleList()) out << double_text(x);
      out << YAML::EndSeq;
      return;
    case IValue::Tag::BoolList:
      out << YAML::Flow << YAML::BeginSeq;
      for (bool x : v.toBoolList()) out << x;
      out << YAML::EndSeq;
      return;
    case IValue::Tag::GenericList:
    case IValue::Tag::Tensor:
    case IValue::Tag::TensorList:
      break;
  }
  TG_CHECK(false, "[Graph::save] cannot write a constant of type ", v.type_name());
}

}  // namespace

std::string Graph::to_yaml() const {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "format" << YAML::Value << std::string(kFormat);
  out << YAML::Key << "inputs" << YAML::Value << YAML::BeginSeq;
  for (int id : inputs_) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name(id);
    out << YAML::Key << "value" << YAML::Value << value_ref(id);
    emit_type(out, type(id));
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  bool any_constant = false;
  for (int id = 0; id < num_values(); ++id) any_constant = any_constant || is_constant(id);
  if (any_constant) {
    out << YAML::Key << "constants" << YAML::Value << YAML::BeginSeq;
    for (int id = 0; id < num_values(); ++id) {
      if (!is_constant(id)) continue;
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "value" << YAML::Value << value_ref(id);
      emit_type(out, type(id));
      out << YAML::Key << "data" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      const Tensor data = constant(id).to(TensorOptions().device(Device(DeviceType::CPU))).contiguous();
      const auto* bytes = static_cast<const char*>(data.data_ptr());
      const size_t itemsize = element_size(data.scalar_type());
      for (int64_t i = 0; i < data.numel(); ++i) {
        const Scalar x = load_scalar(bytes + static_cast<size_t>(i) * itemsize, data.scalar_type());
        if (is_floating_type(data.scalar_type())) {
          out << double_text(x.toDouble());
        } else {
          out << x.toLong();
        }
      }
      out << YAML::EndSeq;
      if (constant(id).unsafeGetTensorImpl()->is_wrapped_number()) {
        out << YAML::Key << "wrapped_number" << YAML::Value << true;
      }
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  out << YAML::Key << "nodes" << YAML::Value << YAML::BeginSeq;
  for (const Node& node : nodes_) {
    const FunctionSchema& schema = Dispatcher::singleton().findSchemaOrThrow(node.op).schema();
    TG_CHECK(node.args.size() == schema.arguments.size(), "[Graph::save] node ", node.op, " has ",
             node.args.size(), " arguments, its schema ", schema.arguments.size());
    out << YAML::BeginMap << YAML::Key << "op" << YAML::Value << node.op;
    out << YAML::Key << "args" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (size_t i = 0; i < node.args.size(); ++i) {
      const NodeArg& arg = node.args[i];
      out << YAML::Key << schema.arguments[i].name << YAML::Value;
      if (arg.kind == NodeArg::Kind::Value) {
        out << value_ref(arg.values[0]);
      } else if (arg.kind == NodeArg::Kind::ValueList) {
        out << YAML::BeginSeq;
        for (int v : arg.values) out << value_ref(v);
        out << YAML::EndSeq;
      } else {
        emit_constant(out, schema.arguments[i].type, arg.constant);
      }
    }
    out << YAML::EndMap;
    out << YAML::Key << "outputs" << YAML::Value << YAML::BeginSeq;
    for (int v : node.outputs) {
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "value" << YAML::Value << value_ref(v);
      emit_type(out, type(v));
      out << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "outputs" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (int v : outputs_) out << value_ref(v);
  out << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

void Graph::save(const std::string& path) const {
  const std::string text = to_yaml();
  std::ofstream file(path);
  TG_CHECK(file.good(), "[Graph::save] cannot open '", path, "' for writing");
  file << text;
  file.close();
  TG_CHECK(!file.fail(), "[Graph::save] writing '", path, "' failed");
}

// ---- reading ----

namespace {

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  template <typename... Args>
  [[noreturn]] void fail(const YAML::Mark& mark, const Args&... args) const {
    std::ostringstream out;
    out << file_ << ':' << mark.line + 1 << ':' << mark.column + 1 << ": ";
    (out << ... << args);
    throw ValueError(out.str(), TG_SOURCE_LOCATION);
  }

  Graph read(const YAML::Node& root) {
    if (!root.IsMap()) fail(root.Mark(), "expected a map with keys format, inputs, nodes, outputs");
    check_keys(root, {"format", "inputs", "constants", "nodes", "outputs"});
    const YAML::Node format = required(root, "format", root);
    if (scalar(format, "the format name") != kFormat) {
      fail(format.Mark(), "expected format '", kFormat, "', got '", format.Scalar(), "'");
    }
    for (const YAML::Node& input : sequence(required(root, "inputs", root), "inputs")) {
      if (!input.IsMap()) fail(input.Mark(), "expected an input {name, value, dtype, sizes, device}");
      check_keys(input, {"name", "value", "dtype", "sizes", "device"});
      const std::string name = scalar(required(input, "name", input), "an input name");
      define(required(input, "value", input), read_type(input), name, /*is_input=*/true);
    }
    if (const YAML::Node constants = root["constants"]) {
      for (const YAML::Node& c : sequence(constants, "constants")) read_constant_tensor(c);
    }
    for (const YAML::Node& node : sequence(required(root, "nodes", root), "nodes")) read_node(node);
    for (const YAML::Node& out : sequence(required(root, "outputs", root), "outputs")) {
      graph_.add_output(use(out));
    }
    return std::move(graph_);
  }

 private:
  void check_keys(const YAML::Node& map, std::initializer_list<std::string_view> known) const {
    for (const auto& entry : map) {
      const std::string key = entry.first.Scalar();
      bool found = false;
      for (std::string_view k : known) found = found || k == key;
      if (!found) {
        std::ostringstream list;
        for (std::string_view k : known) list << (list.tellp() > 0 ? ", " : "") << k;
        fail(entry.first.Mark(), "unknown key '", key, "'; expected one of: ", list.str());
      }
    }
  }

  YAML::Node required(const YAML::Node& map, const char* key, const YAML::Node& where) const {
    YAML::Node v = map[key];
    if (!v) fail(where.Mark(), "missing key '", key, "'");
    return v;
  }

  std::string scalar(const YAML::Node& n, const char* what) const {
    if (!n.IsScalar()) fail(n.Mark(), "expected ", what, " (a scalar)");
    return n.Scalar();
  }

  std::vector<YAML::Node> sequence(const YAML::Node& n, const char* what) const {
    if (!n.IsSequence()) fail(n.Mark(), "expected '", what, "' to be a list");
    return {n.begin(), n.end()};
  }

  int64_t integer(const YAML::Node& n, const char* what) const {
    const std::string s = scalar(n, what);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) fail(n.Mark(), "expected ", what, " (an integer), got '", s, "'");
    return v;
  }

  double real(const YAML::Node& n, const char* what) const {
    const std::string s = scalar(n, what);
    if (s == ".nan" || s == ".NaN") return std::nan("");
    if (s == ".inf") return INFINITY;
    if (s == "-.inf") return -INFINITY;
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) fail(n.Mark(), "expected ", what, " (a number), got '", s, "'");
    return v;
  }

  bool boolean(const YAML::Node& n, const char* what) const {
    const std::string s = scalar(n, what);
    if (s == "true") return true;
    if (s == "false") return false;
    fail(n.Mark(), "expected ", what, " (true or false), got '", s, "'");
  }

  static bool looks_real(const std::string& s) {
    return s.find_first_of(".eE") != std::string::npos || s.find("inf") != std::string::npos ||
           s.find("nan") != std::string::npos;
  }

  TensorType read_type(const YAML::Node& map) const {
    TensorType type;
    const YAML::Node dtype = required(map, "dtype", map);
    try {
      const std::string name = scalar(dtype, "a dtype");
      // "undefined": an output its operator left undefined (graph.h).
      type.dtype = name == "undefined" ? ScalarType::Undefined : scalar_type_from_string(name);
    } catch (const Error&) {
      fail(dtype.Mark(), "unknown dtype '", dtype.Scalar(), "'; expected a name such as float32, int64, bool");
    }
    const YAML::Node sizes = required(map, "sizes", map);
    for (const YAML::Node& s : sequence(sizes, "sizes")) {
      const int64_t size = integer(s, "a size");
      if (size < 0) fail(s.Mark(), "expected a size >= 0, got ", size);
      type.sizes.push_back(size);
    }
    // Every later use of the type (numel, bytes, a constant's data) multiplies the sizes.
    int64_t numel = 0;
    if (multiply_overflows(type.sizes, &numel)) {
      fail(sizes.Mark(), "expected sizes whose product fits in int64, got ", IntArrayRef(type.sizes));
    }
    const YAML::Node device = required(map, "device", map);
    try {
      type.device = Device(scalar(device, "a device"));
    } catch (const Error&) {
      fail(device.Mark(), "unknown device '", device.Scalar(), "'; expected cpu or cuda:N");
    }
    return type;
  }

  int parse_ref(const YAML::Node& n) const {
    const std::string s = n.IsScalar() ? n.Scalar() : std::string();
    int id = -1;
    if (s.size() < 2 || s[0] != '%' || std::from_chars(s.data() + 1, s.data() + s.size(), id).ptr != s.data() + s.size() ||
        id < 0) {
      fail(n.Mark(), "expected a value reference like \"%3\", got '", n.IsScalar() ? s : std::string("a collection"), "'");
    }
    return id;
  }

  // Defines the value a "%N" names; ids must be new. Graph ids are dense and in file order, so
  // each file id maps to the next graph id.
  void define(const YAML::Node& ref, TensorType type, std::string name, bool is_input) {
    const int id = parse_ref(ref);
    if (ids_.contains(id)) fail(ref.Mark(), "value %", id, " is defined twice (first at line ", lines_[id], ")");
    const int gid = is_input ? graph_.add_input(std::move(type), std::move(name)) : graph_.add_value(std::move(type));
    ids_[id] = gid;
    lines_[id] = ref.Mark().line + 1;
  }

  void read_constant_tensor(const YAML::Node& c) {
    if (!c.IsMap()) fail(c.Mark(), "expected a constant {value, dtype, sizes, device, data}");
    check_keys(c, {"value", "dtype", "sizes", "device", "data", "wrapped_number"});
    TensorType type = read_type(c);
    const YAML::Node data = required(c, "data", c);
    const std::vector<YAML::Node> items = sequence(data, "data");
    if (static_cast<int64_t>(items.size()) != type.numel()) {
      fail(data.Mark(), "a constant of sizes ", TensorType{type.dtype, type.sizes, type.device}, " needs ", type.numel(),
           " data items, got ", items.size());
    }
    Tensor t = make_empty_tensor(type.sizes, type.dtype, Device(DeviceType::CPU));
    auto* bytes = static_cast<char*>(t.data_ptr());
    const size_t itemsize = element_size(type.dtype);
    for (size_t i = 0; i < items.size(); ++i) {
      const Scalar x = is_floating_type(type.dtype) ? Scalar(real(items[i], "a number"))
                                                    : Scalar(integer(items[i], "an integer"));
      store_scalar(bytes + i * itemsize, type.dtype, x);
    }
    if (!type.device.is_cpu()) t = t.to(TensorOptions().device(type.device));
    if (const YAML::Node wrapped = c["wrapped_number"]) {
      if (boolean(wrapped, "wrapped_number")) {
        if (!type.sizes.empty()) fail(wrapped.Mark(), "a wrapped number must have sizes []");
        t.unsafeGetTensorImpl()->set_wrapped_number(true);
      }
    }
    const YAML::Node ref = required(c, "value", c);
    const int id = parse_ref(ref);
    if (ids_.contains(id)) fail(ref.Mark(), "value %", id, " is defined twice (first at line ", lines_[id], ")");
    ids_[id] = graph_.add_constant(t);
    lines_[id] = ref.Mark().line + 1;
  }

  int use(const YAML::Node& ref) const {
    const int id = parse_ref(ref);
    auto it = ids_.find(id);
    if (it == ids_.end()) fail(ref.Mark(), "value %", id, " is used before it is defined");
    return it->second;
  }

  IValue read_constant(const YAML::Node& n, const Argument& arg) const {
    const SchemaType& type = arg.type;
    if (n.IsNull()) {
      if (!type.optional) fail(n.Mark(), "argument '", arg.name, "' of type ", type.str(), " cannot be null");
      return IValue();
    }
    if (type.is_list) {
      if (!n.IsSequence()) fail(n.Mark(), "argument '", arg.name, "' expects a list (", type.str(), ")");
      if (type.base == BaseType::Int || type.base == BaseType::SymInt) {
        std::vector<int64_t> v;
        for (const YAML::Node& x : n) v.push_back(integer(x, "an int"));
        return IValue(std::move(v));
      }
      if (type.base == BaseType::Float) {
        std::vector<double> v;
        for (const YAML::Node& x : n) v.push_back(real(x, "a float"));
        return IValue(std::move(v));
      }
      if (type.base == BaseType::Bool) {
        std::vector<bool> v;
        for (const YAML::Node& x : n) v.push_back(boolean(x, "a bool"));
        return IValue(std::move(v));
      }
      fail(n.Mark(), "argument '", arg.name, "' has type ", type.str(), ", which graph files cannot hold");
    }
    switch (type.base) {
      case BaseType::Int:
      case BaseType::SymInt:
      case BaseType::Layout:
      case BaseType::MemoryFormat:
        return IValue(integer(n, "an int"));
      case BaseType::Float:
        return IValue(real(n, "a float"));
      case BaseType::Bool:
        return IValue(boolean(n, "a bool"));
      case BaseType::Str:
        return IValue(scalar(n, "a string"));
      case BaseType::Scalar: {
        const std::string s = scalar(n, "a number");
        if (s == "true" || s == "false") return IValue(s == "true");
        return looks_real(s) ? IValue(real(n, "a number")) : IValue(integer(n, "a number"));
      }
      case BaseType::ScalarType:
        try {
          return IValue(scalar_type_from_string(scalar(n, "a dtype")));
        } catch (const Error&) {
          fail(n.Mark(), "argument '", arg.name, "': unknown dtype '", n.Scalar(), "'");
        }
      case BaseType::Device:
        try {
          return IValue(Device(scalar(n, "a device")));
        } catch (const Error&) {
          fail(n.Mark(), "argument '", arg.name, "': unknown device '", n.Scalar(), "'");
        }
      case BaseType::Tensor:
      case BaseType::Generator:
        break;
    }
    fail(n.Mark(), "argument '", arg.name, "' has type ", type.str(), ", which graph files cannot hold");
  }

  void read_node(const YAML::Node& n) {
    if (!n.IsMap()) fail(n.Mark(), "expected a node {op, args, outputs}");
    check_keys(n, {"op", "args", "outputs"});
    const YAML::Node op_node = required(n, "op", n);
    const std::string op_name = scalar(op_node, "an operator name");
    std::optional<OperatorHandle> op = Dispatcher::singleton().findSchema(op_name);
    if (!op) {
      const std::vector<std::string> names = Dispatcher::singleton().allOperatorNames();
      const std::vector<std::string_view> views(names.begin(), names.end());
      std::string hint;
      if (auto close = closest_match(op_name, views, 4)) hint = "; did you mean '" + *close + "'?";
      fail(op_node.Mark(), "unknown operator '", op_name, "' (expected a registered overload such as tg::add.Tensor)", hint);
    }
    const FunctionSchema& schema = op->schema();
    Node node;
    node.op = op_name;
    const YAML::Node args = required(n, "args", n);
    if (!args.IsMap()) fail(args.Mark(), "expected 'args' to be a map from argument name to value");
    std::set<std::string> seen;
    for (const auto& entry : args) {
      const std::string key = entry.first.Scalar();
      bool known = false;
      for (const Argument& a : schema.arguments) known = known || a.name == key;
      if (!known) fail(entry.first.Mark(), op_name, " has no argument '", key, "'; its schema is ", schema.str());
    }
    for (const Argument& arg : schema.arguments) {
      const YAML::Node v = args[arg.name];
      if (!v) {
        if (!arg.default_value) fail(args.Mark(), op_name, ": missing argument '", arg.name, "' (", arg.type.str(), ")");
        node.args.push_back(arg.type.base == BaseType::Tensor ? NodeArg::make_constant(IValue())
                                                              : NodeArg::make_constant(default_ivalue(arg)));
        continue;
      }
      if (arg.type.base == BaseType::Tensor) {
        if (arg.type.is_list) {
          if (!v.IsSequence()) fail(v.Mark(), op_name, ": argument '", arg.name, "' expects a list of value references");
          std::vector<int> ids;
          for (const YAML::Node& x : v) ids.push_back(use(x));
          node.args.push_back(NodeArg::value_list(std::move(ids)));
        } else if (v.IsNull()) {
          if (!arg.type.optional) fail(v.Mark(), op_name, ": argument '", arg.name, "' is a Tensor and cannot be null");
          node.args.push_back(NodeArg::make_constant(IValue()));
        } else {
          if (!v.IsScalar() || v.Scalar().empty() || v.Scalar()[0] != '%') {
            fail(v.Mark(), op_name, ": argument '", arg.name, "' expects a tensor value reference like \"%3\", got '",
                 v.IsScalar() ? v.Scalar() : std::string("a collection"), "'");
          }
          node.args.push_back(NodeArg::value(use(v)));
        }
      } else {
        if (v.IsScalar() && !v.Scalar().empty() && v.Scalar()[0] == '%') {
          fail(v.Mark(), op_name, ": argument '", arg.name, "' expects a constant of type ", arg.type.str(),
               ", got the value reference '", v.Scalar(), "'");
        }
        node.args.push_back(NodeArg::make_constant(read_constant(v, arg)));
      }
    }
    const YAML::Node outputs = required(n, "outputs", n);
    const std::vector<YAML::Node> outs = sequence(outputs, "outputs");
    if (outs.size() != schema.returns.size()) {
      fail(outputs.Mark(), op_name, " returns ", schema.returns.size(), " tensor(s); the node lists ", outs.size(),
           " output(s)");
    }
    for (const YAML::Node& out : outs) {
      if (!out.IsMap()) fail(out.Mark(), "expected an output {value, dtype, sizes, device}");
      check_keys(out, {"value", "dtype", "sizes", "device"});
      const YAML::Node ref = required(out, "value", out);
      define(ref, read_type(out), {}, /*is_input=*/false);
      node.outputs.push_back(graph_.num_values() - 1);
    }
    graph_.add_node(std::move(node));
  }

  std::string file_;
  Graph graph_;
  std::unordered_map<int, int> ids_;
  std::unordered_map<int, int> lines_;
};

}  // namespace

Graph parse_graph_yaml(std::string_view text, const std::string& file_name) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    std::ostringstream out;
    out << file_name << ':' << e.mark.line + 1 << ':' << e.mark.column + 1 << ": invalid YAML: " << e.msg;
    throw ValueError(out.str(), TG_SOURCE_LOCATION);
  }
  Reader reader(file_name);
  Graph graph;
  try {
    graph = reader.read(root);
  } catch (const YAML::Exception& e) {
    std::ostringstream out;
    out << file_name << ':' << e.mark.line + 1 << ':' << e.mark.column + 1 << ": " << e.msg;
    throw ValueError(out.str(), TG_SOURCE_LOCATION);
  }
  lint_graph(graph, file_name);
  return graph;
}

Graph load(const std::string& path) {
  std::ifstream file(path);
  TG_CHECK_VALUE(file.good(), "[jit::load] cannot open '", path, "'");
  std::stringstream text;
  text << file.rdbuf();
  return parse_graph_yaml(text.str(), path);
}

}  // namespace tg::jit
