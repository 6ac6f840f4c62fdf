// The printer for FunctionSchema. Its output is the canonical text that parse_schema reads
// back unchanged: single spaces after ',' and around "->", none elsewhere.
#include "dispatch/function_schema.h"

#include <algorithm>
#include <array>

namespace tg {

namespace {

// Indexed by BaseType, in its declaration order.
constexpr std::array<std::string_view, kNumBaseTypes> kBaseTypeNames = {
    "Tensor", "int",        "SymInt", "float",  "bool",         "str",
    "Scalar", "ScalarType", "Device", "Layout", "MemoryFormat", "Generator",
};
// std::array value-initialises missing entries, so a type added to the enum but not here
// would print as "" without this check.
static_assert(std::ranges::none_of(kBaseTypeNames, [](std::string_view name) { return name.empty(); }),
              "every BaseType needs a name in kBaseTypeNames");

}  // namespace

std::string_view base_type_name(BaseType type) { return kBaseTypeNames[static_cast<size_t>(type)]; }

std::optional<BaseType> base_type_from_name(std::string_view name) {
  for (int i = 0; i < kNumBaseTypes; ++i) {
    if (kBaseTypeNames[static_cast<size_t>(i)] == name) return static_cast<BaseType>(i);
  }
  return std::nullopt;
}

std::string SchemaType::str() const {
  std::string out(base_type_name(base));
  if (alias) {
    out += "(" + alias->set + (alias->is_write ? "!)" : ")");
  }
  if (element_optional) out += "?";
  if (is_list) {
    out += "[";
    if (list_size) out += std::to_string(*list_size);
    out += "]";
  }
  if (optional) out += "?";
  return out;
}

std::string Argument::str() const {
  std::string out = type.str();
  if (!name.empty()) out += " " + name;
  if (default_value) out += "=" + *default_value;
  return out;
}

std::string FunctionSchema::str() const {
  std::string out = operator_name() + "(";
  bool in_kwargs = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i > 0) out += ", ";
    if (arguments[i].kwarg_only && !in_kwargs) {
      out += "*, ";
      in_kwargs = true;
    }
    out += arguments[i].str();
  }
  out += ") -> ";
  // A lone unnamed return is written bare; anything else needs the parenthesised tuple form.
  if (returns.size() == 1 && returns[0].name.empty()) {
    out += returns[0].str();
  } else {
    out += "(";
    for (size_t i = 0; i < returns.size(); ++i) {
      if (i > 0) out += ", ";
      out += returns[i].str();
    }
    out += ")";
  }
  return out;
}

bool FunctionSchema::is_mutable() const {
  return std::ranges::any_of(arguments, [](const Argument& argument) {
    return argument.type.alias && argument.type.alias->is_write;
  });
}

std::string FunctionSchema::operator_name() const {
  return overload_name.empty() ? name : name + "." + overload_name;
}

}  // namespace tg
