#include "jit/static/out_variant.h"

#include <mutex>
#include <string>
#include <unordered_map>

namespace tg::jit {
namespace {

SchemaType without_alias(SchemaType type) {
  type.alias.reset();
  return type;
}

// Operator names grouped by base name ("tg::mm" -> {"tg::mm", "tg::mm.out"}), built once.
const std::unordered_map<std::string, std::vector<std::string>>& overloads_by_name() {
  static const auto table = [] {
    std::unordered_map<std::string, std::vector<std::string>> result;
    for (const std::string& full : Dispatcher::singleton().allOperatorNames()) {
      const size_t dot = full.find('.', full.rfind(':') + 1);
      result[full.substr(0, dot)].push_back(full);
    }
    return result;
  }();
  return table;
}

std::optional<std::vector<int>> match(const FunctionSchema& functional, const FunctionSchema& candidate) {
  if (!candidate.is_mutable()) return std::nullopt;
  std::vector<int> sources;
  size_t next_arg = 0, next_return = 0;
  for (const Argument& arg : candidate.arguments) {
    const bool writes = arg.type.alias.has_value() && arg.type.alias->is_write;
    if (writes) {
      if (!arg.kwarg_only || arg.type.base != BaseType::Tensor || arg.type.is_list) return std::nullopt;
      sources.push_back(-static_cast<int>(++next_return));
      continue;
    }
    if (next_arg >= functional.arguments.size()) return std::nullopt;
    const Argument& expected = functional.arguments[next_arg];
    if (expected.name != arg.name || without_alias(expected.type) != without_alias(arg.type)) return std::nullopt;
    sources.push_back(static_cast<int>(next_arg++));
  }
  if (next_arg != functional.arguments.size() || next_return != functional.returns.size()) return std::nullopt;
  return sources;
}

}  // namespace

std::optional<OutVariant> find_out_variant(const OperatorHandle& functional) {
  const FunctionSchema& schema = functional.schema();
  if (schema.is_mutable() || schema.returns.empty()) return std::nullopt;
  for (const Argument& ret : schema.returns) {
    if (ret.type.base != BaseType::Tensor || ret.type.is_list || ret.type.alias.has_value()) return std::nullopt;
  }
  const std::string full = functional.operator_name().str();
  const auto& table = overloads_by_name();
  auto it = table.find(full.substr(0, full.find('.', full.rfind(':') + 1)));
  if (it == table.end()) return std::nullopt;
  for (const std::string& name : it->second) {
    if (name == full) continue;
    std::optional<OperatorHandle> candidate = Dispatcher::singleton().findSchema(name);
    if (!candidate) continue;
    if (auto sources = match(schema, candidate->schema())) return OutVariant{*candidate, std::move(*sources)};
  }
  return std::nullopt;
}

}  // namespace tg::jit
