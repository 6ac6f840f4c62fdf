// Graph: a straight-line program of operator calls in SSA form, as captured by the tracer.
// Invariants (checked by lint_graph): every value id < num_values() is defined exactly once,
// by being a graph input or a node output, before any node reads it; nodes are in execution
// order; each node's args line up one to one with its operator's schema arguments.
// A Graph is plain data: copying it copies the program, == compares programs.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/ivalue.h"
#include "core/scalar_type.h"

namespace tg::jit {

// What a tensor value is, as recorded when it was produced.
struct TensorType {
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> sizes;
  Device device{DeviceType::CPU};

  int64_t numel() const;
  int64_t nbytes() const;
  friend bool operator==(const TensorType&, const TensorType&) = default;
};

// One schema argument of a node: a tensor value, a list of tensor values (Tensor[]), or a
// constant (anything else, including None for an absent Tensor?).
struct NodeArg {
  enum class Kind { Value, ValueList, Constant };
  Kind kind = Kind::Constant;
  std::vector<int> values;  // one id for Value, any number for ValueList
  IValue constant;

  static NodeArg value(int id) { return {Kind::Value, {id}, IValue()}; }
  static NodeArg value_list(std::vector<int> ids) { return {Kind::ValueList, std::move(ids), IValue()}; }
  static NodeArg make_constant(IValue v) { return {Kind::Constant, {}, std::move(v)}; }
  friend bool operator==(const NodeArg& a, const NodeArg& b);
};

struct Node {
  std::string op;  // the operator's full name, "tg::add.Tensor"
  std::vector<NodeArg> args;
  std::vector<int> outputs;  // one value per schema return (each a Tensor)

  friend bool operator==(const Node&, const Node&) = default;
};

class Graph {
 public:
  // A new value of type `type`; `name` is kept for inputs (what callers bind them by).
  int add_value(TensorType type, std::string name = {});
  int add_input(TensorType type, std::string name);
  // A value known before the graph runs (what constant folding produces); its type is the
  // tensor's. The graph keeps the tensor and never writes to it.
  int add_constant(Tensor value);
  // Input `id` becomes a constant holding `value` itself (not a copy), which must have the
  // input's dtype, device and sizes (tg::Error otherwise): what freezing does (passes/freeze.h).
  void make_input_constant(int id, Tensor value);
  void add_node(Node node) { nodes_.push_back(std::move(node)); }
  void add_output(int id) { outputs_.push_back(id); }

  int num_values() const { return static_cast<int>(types_.size()); }
  const TensorType& type(int id) const { return types_.at(static_cast<size_t>(id)); }
  TensorType& mutable_type(int id) { return types_.at(static_cast<size_t>(id)); }
  const std::string& name(int id) const { return names_.at(static_cast<size_t>(id)); }
  bool is_constant(int id) const { return constants_.at(static_cast<size_t>(id)).defined(); }
  // The constant's tensor; undefined when `id` is not a constant.
  const Tensor& constant(int id) const { return constants_.at(static_cast<size_t>(id)); }
  const std::vector<int>& inputs() const { return inputs_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  std::vector<Node>& mutable_nodes() { return nodes_; }
  const std::vector<int>& outputs() const { return outputs_; }
  std::vector<int>& mutable_outputs() { return outputs_; }

  // Writes the YAML form (graph_yaml.cpp); throws tg::Error when the file cannot be written.
  void save(const std::string& path) const;
  std::string to_yaml() const;

  // Same program: same values, types, names, constants (by dtype, shape and every element),
  // nodes and outputs.
  friend bool operator==(const Graph& a, const Graph& b);

 private:
  std::vector<TensorType> types_;
  std::vector<Tensor> constants_;  // per value; undefined for non-constants
  std::vector<std::string> names_;
  std::vector<int> inputs_;
  std::vector<Node> nodes_;
  std::vector<int> outputs_;
};

// The same program with value ids in canonical order: inputs, then constants, then node
// outputs in node order; values nothing defines and constants nothing reads are dropped. What the YAML loader produces,
// so renumbered(g) round-trips exactly.
Graph renumbered(const Graph& graph);

// Human-readable listing, one node a line: "%3 = tg::mm(%1, %2)  # Float[2, 4]".
std::ostream& operator<<(std::ostream& out, const Graph& graph);
std::ostream& operator<<(std::ostream& out, const TensorType& type);

// Two IValues hold the same constant (same tag, equal payloads; tensors are never constants).
bool same_constant(const IValue& a, const IValue& b);

}  // namespace tg::jit
