#include "dispatch/schema_values.h"

#include <charconv>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/reduction.h"

namespace tg {

namespace {

bool base_matches(BaseType base, const IValue& v) {
  switch (base) {
    case BaseType::Tensor: return v.isTensor();
    case BaseType::Int:
    case BaseType::SymInt:
    case BaseType::ScalarType:
    case BaseType::Layout:
    case BaseType::MemoryFormat: return v.isInt();
    case BaseType::Float: return v.isDouble() || v.isInt();
    case BaseType::Bool: return v.isBool();
    case BaseType::Str: return v.isString();
    case BaseType::Scalar: return v.isScalar();
    case BaseType::Device: return v.isDevice();
    case BaseType::Generator: return false;  // no boxed generators yet
  }
  return false;
}

// The N of `int[N]` is not a required length (sum's `int[1]? dim` takes any number of dims,
// as in PyTorch); it is the length one int given for the list broadcasts to.
bool list_matches(const SchemaType& type, const IValue& v) {
  switch (type.base) {
    case BaseType::Tensor:
      if (type.element_optional) return v.isList() || v.isTensorList();  // Tensor[]: coerced below
      return v.isTensorList();
    case BaseType::Int:
    case BaseType::SymInt: return v.isIntList() || (type.list_size.has_value() && v.isInt());
    case BaseType::Float: return v.isDoubleList();
    case BaseType::Bool: return v.isBoolList();
    default: return false;
  }
}

int64_t parse_int(std::string_view text, const Argument& argument) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  TG_CHECK_VALUE(ec == std::errc() && end == text.data() + text.size(), "[schema] default '", text,
                 "' of argument '", argument.name, "' is not an integer");
  return value;
}

bool is_integer_literal(std::string_view text) {
  if (text.empty()) return false;
  size_t start = text[0] == '-' ? 1 : 0;
  if (start == text.size()) return false;
  for (size_t i = start; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  return true;
}

IValue parse_number(std::string_view text, const Argument& argument, bool want_float) {
  if (!want_float && is_integer_literal(text)) return IValue(parse_int(text, argument));
  try {
    return IValue(std::stod(std::string(text)));
  } catch (const std::exception&) {
    TG_THROW(ValueError, "[schema] default '", text, "' of argument '", argument.name, "' is not a number");
  }
}

std::vector<int64_t> parse_int_list(std::string_view text, const Argument& argument) {
  TG_CHECK_VALUE(text.size() >= 2 && text.front() == '[' && text.back() == ']', "[schema] default '", text,
                 "' of argument '", argument.name, "' is not a list");
  std::vector<int64_t> values;
  std::string_view body = text.substr(1, text.size() - 2);
  while (!body.empty()) {
    size_t comma = body.find(',');
    std::string_view item = body.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    values.push_back(parse_int(item, argument));
    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 1);
  }
  return values;
}

}  // namespace

bool ivalue_matches(const SchemaType& type, const IValue& value) {
  if (value.isNone()) return type.optional;
  if (type.is_list) return list_matches(type, value);
  return base_matches(type.base, value);
}

void coerce_ivalue(const SchemaType& type, IValue& value) {
  if (type.is_list && type.element_optional && value.isTensorList()) {  // a Tensor?[] given without None
    std::vector<IValue> items;
    for (const Tensor& t : value.toTensorList()) items.emplace_back(t);
    value = IValue(std::move(items));
    return;
  }
  if (!value.isInt()) return;
  if (type.is_list) {
    // One int for an int[N]: N copies of it (PyTorch's `int[2] stride=1` means [1, 1]).
    if (type.list_size) value = IValue(std::vector<int64_t>(static_cast<size_t>(*type.list_size), value.toInt()));
  } else if (type.base == BaseType::Float) {
    value = IValue(static_cast<double>(value.toInt()));
  }
}

IValue default_ivalue(const Argument& argument) {
  TG_CHECK_VALUE(argument.default_value.has_value(), "[schema] argument '", argument.name, "' has no default");
  const std::string& text = *argument.default_value;
  const SchemaType& type = argument.type;
  if (text == "None") {
    TG_CHECK_VALUE(type.optional, "[schema] default None of argument '", argument.name, "' needs an optional type");
    return IValue();
  }
  if (type.is_list) {
    if (type.base == BaseType::Int || type.base == BaseType::SymInt) {
      if (text.front() != '[') {
        // `int[2] stride=1`: one value repeated to the list's length.
        int64_t v = parse_int(text, argument);
        return IValue(std::vector<int64_t>(static_cast<size_t>(type.list_size.value_or(1)), v));
      }
      return IValue(parse_int_list(text, argument));
    }
    TG_CHECK_VALUE(text == "[]", "[schema] only empty defaults are supported for ", type.str(), " argument '",
                   argument.name, "', got '", text, "'");
    if (type.base == BaseType::Tensor) return IValue(std::vector<Tensor>{});
    if (type.base == BaseType::Float) return IValue(std::vector<double>{});
    if (type.base == BaseType::Bool) return IValue(std::vector<bool>{});
  }
  switch (type.base) {
    case BaseType::Bool:
      TG_CHECK_VALUE(text == "True" || text == "False", "[schema] default '", text, "' of bool argument '",
                     argument.name, "' must be True or False");
      return IValue(text == "True");
    case BaseType::Int:
    case BaseType::SymInt:
      // A loss's `int reduction=Mean` (core/reduction.h).
      if (text == "Mean") return IValue(static_cast<int64_t>(Reduction::Mean));
      if (text == "Sum") return IValue(static_cast<int64_t>(Reduction::Sum));
      return IValue(parse_int(text, argument));
    case BaseType::Float: return parse_number(text, argument, /*want_float=*/true);
    case BaseType::Scalar:
      if (text == "True" || text == "False") return IValue(text == "True");
      return parse_number(text, argument, /*want_float=*/false);
    case BaseType::Str:
      TG_CHECK_VALUE(text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front(),
                     "[schema] default '", text, "' of str argument '", argument.name, "' must be quoted");
      return IValue(text.substr(1, text.size() - 2));
    case BaseType::ScalarType: return IValue(scalar_type_from_string(text));
    case BaseType::MemoryFormat:
      TG_CHECK_VALUE(text == "contiguous_format" || text == "preserve_format", "[schema] unknown memory format '",
                     text, "' for argument '", argument.name, "'");
      return IValue(text == "contiguous_format" ? MemoryFormat::Contiguous : MemoryFormat::Preserve);
    case BaseType::Layout:
      TG_CHECK_VALUE(text == "strided", "[schema] unknown layout '", text, "' for argument '", argument.name, "'");
      return IValue(Layout::Strided);
    case BaseType::Device: return IValue(Device(text));
    default: break;
  }
  TG_THROW(ValueError, "[schema] cannot box default '", text, "' of ", type.str(), " argument '", argument.name, "'");
}

}  // namespace tg
