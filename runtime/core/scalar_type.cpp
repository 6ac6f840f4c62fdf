#include "core/scalar_type.h"

#include <atomic>

#include "core/error.h"

namespace tg {

std::string_view to_string(ScalarType t) {
  switch (t) {
#define TG_NAME_CASE(ctype, name, str) \
  case ScalarType::name:               \
    return #str;
    TG_FORALL_SCALAR_TYPES(TG_NAME_CASE)
#undef TG_NAME_CASE
    case ScalarType::Undefined:
      return "undefined";
  }
  return "invalid";
}

std::ostream& operator<<(std::ostream& out, ScalarType t) { return out << to_string(t); }

ScalarType scalar_type_from_string(std::string_view name) {
  struct Alias {
    std::string_view name;
    ScalarType type;
  };
  static constexpr Alias aliases[] = {
      {"uint8", kByte},   {"byte", kByte},    {"int8", kChar},        {"char", kChar},    {"int16", kShort},      {"short", kShort},
      {"int32", kInt},    {"int", kInt},      {"int64", kLong},       {"long", kLong},
      {"float16", kHalf}, {"half", kHalf},    {"float32", kFloat},    {"float", kFloat},
      {"float64", kDouble}, {"double", kDouble}, {"bool", kBool},     {"bfloat16", kBFloat16},
  };
  for (const Alias& alias : aliases) {
    if (alias.name == name) return alias.type;
  }
  TG_THROW(ValueError, "[scalar_type] unknown dtype '", name,
           "'; expected one of float64, float32, float16, bfloat16, int64, int32, int16, int8, uint8, bool");
}

namespace {

// Rank within a category: wider types rank higher.
int integral_rank(ScalarType t) {
  switch (t) {
    case kChar: return 1;
    case kShort: return 2;
    case kInt: return 3;
    case kLong: return 4;
    default: return 0;  // uint8 is handled separately
  }
}

ScalarType signed_integral_of_rank(int rank) {
  constexpr ScalarType by_rank[] = {kByte, kChar, kShort, kInt, kLong};
  return by_rank[rank];
}

}  // namespace

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  if (a == kBool) return b;
  if (b == kBool) return a;
  bool a_float = is_floating_type(a), b_float = is_floating_type(b);
  if (a_float != b_float) return a_float ? a : b;
  if (a_float) {
    // float16 and bfloat16 do not hold each other's values: both fit in float32.
    if ((a == kHalf && b == kBFloat16) || (a == kBFloat16 && b == kHalf)) return kFloat;
    auto rank = [](ScalarType t) { return t == kDouble ? 3 : t == kFloat ? 2 : 1; };
    return rank(a) >= rank(b) ? a : b;
  }
  // Both integral and different. uint8 with a signed type needs the next wider signed type
  // when the signed one is int8, else the signed one already holds every uint8 value.
  if (a == kByte || b == kByte) {
    ScalarType other = a == kByte ? b : a;
    return other == kChar ? kShort : other;
  }
  return signed_integral_of_rank(std::max(integral_rank(a), integral_rank(b)));
}

namespace {
std::atomic<ScalarType> g_default_dtype{kFloat};
}

ScalarType default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }

void set_default_dtype(ScalarType t) {
  TG_CHECK_TYPE(is_floating_type(t), "[set_default_dtype] expected a floating dtype, got ", t);
  g_default_dtype.store(t, std::memory_order_relaxed);
}

void ResultTypeState::add_tensor(ScalarType dtype, int64_t dim) {
  if (dim > 0) {
    dim_result_ = promote_types(dim_result_, dtype);
  } else {
    zero_dim_result_ = promote_types(zero_dim_result_, dtype);
  }
}

void ResultTypeState::add_scalar(ScalarType scalar_type) {
  ScalarType current = is_floating_type(scalar_type) ? default_dtype() : scalar_type;
  wrapped_result_ = promote_types(wrapped_result_, current);
}

namespace {
// `higher` is the result of the higher-priority operands; `lower` participates only if it
// belongs to a higher category (PyTorch's combine_categories).
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (is_floating_type(higher)) return higher;
  if (higher == kBool || is_floating_type(lower)) return promote_types(higher, lower);
  if (higher != ScalarType::Undefined) return higher;
  return lower;
}
}  // namespace

ScalarType ResultTypeState::result() const {
  return combine_categories(dim_result_, combine_categories(zero_dim_result_, wrapped_result_));
}

}  // namespace tg
