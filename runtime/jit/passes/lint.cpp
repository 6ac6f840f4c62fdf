#include "jit/passes/lint.h"

#include "core/error.h"
#include "dispatch/dispatcher.h"
#include "dispatch/schema_values.h"

namespace tg::jit {

void lint_graph(const Graph& graph, std::string_view context) {
  std::vector<bool> defined(static_cast<size_t>(graph.num_values()), false);
  auto define = [&](int v, const std::string& where) {
    TG_CHECK_VALUE(v >= 0 && v < graph.num_values(), context, ": ", where, " defines %", v, ", which is not a value");
    TG_CHECK_VALUE(!defined[static_cast<size_t>(v)], context, ": ", where, " defines %", v, " a second time");
    defined[static_cast<size_t>(v)] = true;
  };
  auto check_defined = [&](int v, const std::string& where) {
    TG_CHECK_VALUE(v >= 0 && v < graph.num_values() && defined[static_cast<size_t>(v)], context, ": ", where,
                   " reads %", v, " before it is defined");
  };
  for (int v : graph.inputs()) define(v, "the input list");
  for (int v = 0; v < graph.num_values(); ++v) {
    if (graph.is_constant(v)) define(v, "the constant list");
  }
  for (size_t k = 0; k < graph.nodes().size(); ++k) {
    const Node& node = graph.nodes()[k];
    const std::string where = "node " + std::to_string(k) + " (" + node.op + ")";
    std::optional<OperatorHandle> op = Dispatcher::singleton().findSchema(node.op);
    TG_CHECK_VALUE(op.has_value(), context, ": ", where, ": no operator of that name is registered");
    const FunctionSchema& schema = op->schema();
    TG_CHECK_VALUE(node.args.size() == schema.arguments.size(), context, ": ", where, ": expected ",
                   schema.arguments.size(), " arguments (", schema.str(), "), got ", node.args.size());
    for (size_t i = 0; i < node.args.size(); ++i) {
      const NodeArg& arg = node.args[i];
      const Argument& expected = schema.arguments[i];
      const bool tensor = expected.type.base == BaseType::Tensor;
      switch (arg.kind) {
        case NodeArg::Kind::Value:
          TG_CHECK_VALUE(tensor && !expected.type.is_list && arg.values.size() == 1, context, ": ", where,
                         ": argument '", expected.name, "' has type ", expected.type.str(), ", got a tensor value");
          break;
        case NodeArg::Kind::ValueList:
          TG_CHECK_VALUE(tensor && expected.type.is_list, context, ": ", where, ": argument '", expected.name,
                         "' has type ", expected.type.str(), ", got a list of tensor values");
          break;
        case NodeArg::Kind::Constant:
          TG_CHECK_VALUE(tensor ? (arg.constant.isNone() && expected.type.optional)
                                : ivalue_matches(expected.type, arg.constant),
                         context, ": ", where, ": argument '", expected.name, "' has type ", expected.type.str(),
                         ", got a constant of type ", arg.constant.type_name());
          break;
      }
      for (int v : arg.values) check_defined(v, where);
    }
    TG_CHECK_VALUE(node.outputs.size() == schema.returns.size(), context, ": ", where, ": the operator returns ",
                   schema.returns.size(), " values, the node defines ", node.outputs.size());
    for (int v : node.outputs) define(v, where);
  }
  for (int v : graph.outputs()) check_defined(v, "the output list");
}

}  // namespace tg::jit
