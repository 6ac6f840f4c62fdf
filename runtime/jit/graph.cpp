#include "jit/graph.h"

#include <algorithm>
#include <cstring>

#include "core/checked_math.h"
#include "core/error.h"
#include "tensorgen/ops.h"

namespace tg::jit {

int64_t TensorType::numel() const { return checked_numel("[TensorType::numel]", sizes); }

int64_t TensorType::nbytes() const {
  return static_cast<int64_t>(checked_nbytes("[TensorType::nbytes]", sizes, element_size(dtype)));
}

bool same_constant(const IValue& a, const IValue& b) {
  if (a.tag() != b.tag()) return false;
  switch (a.tag()) {
    case IValue::Tag::None:
      return true;
    case IValue::Tag::Double:
      return a.toDouble() == b.toDouble();
    case IValue::Tag::Int:
      return a.toInt() == b.toInt();
    case IValue::Tag::Bool:
      return a.toBool() == b.toBool();
    case IValue::Tag::String:
      return a.toStringView() == b.toStringView();
    case IValue::Tag::Device:
      return a.toDevice() == b.toDevice();
    case IValue::Tag::IntList:
      return a.toIntList().vec() == b.toIntList().vec();
    case IValue::Tag::DoubleList:
      return a.toDoubleList().vec() == b.toDoubleList().vec();
    case IValue::Tag::BoolList:
      return a.toBoolList() == b.toBoolList();
    case IValue::Tag::GenericList: {
      ArrayRef<IValue> x = a.toList(), y = b.toList();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!same_constant(x[i], y[i])) return false;
      }
      return true;
    }
    case IValue::Tag::Tensor:
    case IValue::Tag::TensorList:
      return false;
  }
  return false;
}

bool operator==(const NodeArg& a, const NodeArg& b) {
  return a.kind == b.kind && a.values == b.values && same_constant(a.constant, b.constant);
}

int Graph::add_value(TensorType type, std::string name) {
  types_.push_back(std::move(type));
  constants_.emplace_back();
  names_.push_back(std::move(name));
  return num_values() - 1;
}

int Graph::add_input(TensorType type, std::string name) {
  const int id = add_value(std::move(type), std::move(name));
  inputs_.push_back(id);
  return id;
}

int Graph::add_constant(Tensor value) {
  TG_CHECK(value.defined(), "[Graph::add_constant] the constant is an undefined tensor");
  const int id = add_value(TensorType{value.scalar_type(), value.sizes().vec(), value.device()});
  // A wrapped number (a C++ scalar made a 0-dim tensor) keeps its flag: type promotion
  // treats it like a Python number, not like a tensor. A strided constant (a folded view,
  // weight.t()) keeps its strides, so kernels take the path they take in eager; save()
  // writes its elements contiguously.
  constants_.back() = value;
  return id;
}

void Graph::make_input_constant(int id, Tensor value) {
  const auto it = std::find(inputs_.begin(), inputs_.end(), id);
  TG_CHECK(it != inputs_.end(), "[Graph::make_input_constant] value %", id, " is not a graph input");
  TG_CHECK(value.defined(), "[Graph::make_input_constant] input '", name(id), "' gets an undefined tensor");
  const TensorType given{value.scalar_type(), value.sizes().vec(), value.device()};
  TG_CHECK(given == type(id), "[Graph::make_input_constant] input '", name(id), "' is ", type(id), " on ",
           type(id).device, ", the value given is ", given, " on ", given.device);
  inputs_.erase(it);
  constants_.at(static_cast<size_t>(id)) = std::move(value);
}

namespace {
bool same_tensor(const Tensor& a, const Tensor& b) {
  if (a.defined() != b.defined()) return false;
  if (!a.defined()) return true;
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  if (a.unsafeGetTensorImpl()->is_wrapped_number() != b.unsafeGetTensorImpl()->is_wrapped_number()) return false;
  const TensorOptions cpu = TensorOptions().device(Device(DeviceType::CPU));
  const Tensor x = a.to(cpu).contiguous(), y = b.to(cpu).contiguous();
  return std::memcmp(x.data_ptr(), y.data_ptr(), x.nbytes()) == 0;
}
}  // namespace

bool operator==(const Graph& a, const Graph& b) {
  if (a.types_ != b.types_ || a.names_ != b.names_ || a.inputs_ != b.inputs_ || a.nodes_ != b.nodes_ ||
      a.outputs_ != b.outputs_ || a.constants_.size() != b.constants_.size()) {
    return false;
  }
  for (size_t i = 0; i < a.constants_.size(); ++i) {
    if (!same_tensor(a.constants_[i], b.constants_[i])) return false;
  }
  return true;
}

Graph renumbered(const Graph& graph) {
  Graph result;
  std::vector<int> new_id(static_cast<size_t>(graph.num_values()), -1);
  auto map = [&](int v) {
    const int id = new_id.at(static_cast<size_t>(v));
    TG_CHECK(id >= 0, "[renumbered] value %", v, " is used but never defined");
    return id;
  };
  for (int v : graph.inputs()) new_id[static_cast<size_t>(v)] = result.add_input(graph.type(v), graph.name(v));
  std::vector<bool> read(static_cast<size_t>(graph.num_values()), false);
  for (const Node& node : graph.nodes()) {
    for (const NodeArg& arg : node.args) {
      for (int v : arg.values) read.at(static_cast<size_t>(v)) = true;
    }
  }
  for (int v : graph.outputs()) read.at(static_cast<size_t>(v)) = true;
  for (int v = 0; v < graph.num_values(); ++v) {
    if (graph.is_constant(v) && read[static_cast<size_t>(v)]) {
      new_id[static_cast<size_t>(v)] = result.add_constant(graph.constant(v));
    }
  }
  for (const Node& node : graph.nodes()) {
    Node copy = node;
    for (NodeArg& arg : copy.args) {
      for (int& v : arg.values) v = map(v);
    }
    for (int& v : copy.outputs) {
      const int id = result.add_value(graph.type(v));
      new_id[static_cast<size_t>(v)] = id;
      v = id;
    }
    result.add_node(std::move(copy));
  }
  for (int v : graph.outputs()) result.add_output(map(v));
  return result;
}

std::ostream& operator<<(std::ostream& out, const TensorType& type) {
  out << type.dtype << '[';
  for (size_t i = 0; i < type.sizes.size(); ++i) out << (i ? ", " : "") << type.sizes[i];
  out << ']';
  if (!type.device.is_cpu()) out << '@' << type.device;
  return out;
}

std::ostream& operator<<(std::ostream& out, const Graph& graph) {
  out << "graph(";
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const int id = graph.inputs()[i];
    out << (i ? ", " : "") << '%' << id;
    if (!graph.name(id).empty()) out << ' ' << graph.name(id);
    out << ": " << graph.type(id);
  }
  out << "):\n";
  for (int id = 0; id < graph.num_values(); ++id) {
    if (graph.is_constant(id)) out << "  %" << id << " = constant  # " << graph.type(id) << '\n';
  }
  for (const Node& node : graph.nodes()) {
    out << "  ";
    for (size_t i = 0; i < node.outputs.size(); ++i) out << (i ? ", " : "") << '%' << node.outputs[i];
    out << " = " << node.op << '(';
    for (size_t i = 0; i < node.args.size(); ++i) {
      const NodeArg& arg = node.args[i];
      out << (i ? ", " : "");
      if (arg.kind == NodeArg::Kind::Value) {
        out << '%' << arg.values[0];
      } else if (arg.kind == NodeArg::Kind::ValueList) {
        out << '[';
        for (size_t j = 0; j < arg.values.size(); ++j) out << (j ? ", " : "") << '%' << arg.values[j];
        out << ']';
      } else {
        out << arg.constant;
      }
    }
    out << ')';
    if (!node.outputs.empty()) {
      out << "  # ";
      for (size_t i = 0; i < node.outputs.size(); ++i) out << (i ? ", " : "") << graph.type(node.outputs[i]);
    }
    out << '\n';
  }
  out << "  return (";
  for (size_t i = 0; i < graph.outputs().size(); ++i) out << (i ? ", " : "") << '%' << graph.outputs()[i];
  out << ")\n";
  return out;
}

}  // namespace tg::jit
