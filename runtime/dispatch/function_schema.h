// FunctionSchema: an operator's signature in PyTorch's function-schema grammar, as plain data.
// Invariant: str() prints the canonical text, so parse_schema(s).str() == s for canonical s and
// parse_schema(x.str()) == x for every parsed x. Alias sets name storage an argument may share
// with a return; "(a!)" marks an argument the operator writes to (in-place and out= variants).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tg {

// The element types a schema may name. The printed names ("int", "SymInt", ...) are the
// schema grammar's own, not C++'s; see base_type_name.
enum class BaseType : uint8_t {
  Tensor,
  Int,
  SymInt,
  Float,
  Bool,
  Str,
  Scalar,
  ScalarType,
  Device,
  Layout,
  MemoryFormat,
  Generator,
};
inline constexpr int kNumBaseTypes = static_cast<int>(BaseType::Generator) + 1;

// "Tensor", "int", "SymInt", "float", ... exactly as written in a schema.
std::string_view base_type_name(BaseType type);
// The inverse of base_type_name; nullopt for a name that is not a schema type.
std::optional<BaseType> base_type_from_name(std::string_view name);

// "(a)": the value may share storage with everything else in set "a";
// "(a!)": as "(a)", and the operator writes to it.
struct AliasInfo {
  std::string set;
  bool is_write = false;

  friend bool operator==(const AliasInfo&, const AliasInfo&) = default;
};

// A type as written, e.g. "Tensor(a!)[]", "Tensor?[]", "int[1]?". Printed in the order
// base, alias, element '?', list suffix, '?'. Invariants: list_size and element_optional
// imply is_list; alias implies base == Tensor.
struct SchemaType {
  BaseType base = BaseType::Tensor;
  bool is_list = false;               // "int[]", "Tensor[]"
  std::optional<int64_t> list_size;   // "int[2]": a fixed length, > 0
  bool element_optional = false;      // "Tensor?[]": a list whose elements may be None
  bool optional = false;              // "Tensor?", "int[]?": the value itself may be None
  std::optional<AliasInfo> alias;     // "Tensor(a!)", "Tensor(a!)[]"

  std::string str() const;
  friend bool operator==(const SchemaType&, const SchemaType&) = default;
};

// An argument or a return. Returns have no default and may have no name.
struct Argument {
  std::string name;
  SchemaType type;
  // The default's literal text ("1", "None", "[0, 1]", "\"mean\"", "1e-05"), printed verbatim.
  std::optional<std::string> default_value;
  bool kwarg_only = false;  // declared after '*'

  // "Tensor self", "Scalar alpha=1", or "Tensor" for an unnamed return.
  std::string str() const;
  friend bool operator==(const Argument&, const Argument&) = default;
};

// Invariant: arguments' names are unique and non-empty; kwarg-only arguments come after all
// positional ones (the printer emits "*, " once, before the first of them).
struct FunctionSchema {
  std::string name;           // as written, possibly with a namespace: "tg::add" or "add"
  std::string overload_name;  // "Tensor" in "add.Tensor"; empty when there is none
  std::vector<Argument> arguments;
  std::vector<Argument> returns;

  // "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor".
  std::string str() const;
  // True when some argument carries a write alias "(a!)", i.e. the operator mutates an input.
  bool is_mutable() const;
  // The dispatcher's lookup key: "tg::add.Tensor", or "tg::add" when there is no overload.
  std::string operator_name() const;

  friend bool operator==(const FunctionSchema&, const FunctionSchema&) = default;
};

}  // namespace tg
