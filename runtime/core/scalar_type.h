// ScalarType: the element types a tensor can hold, with PyTorch's promotion lattice.
// Categories order as bool < integral < floating; promote_types(a, b) is the smallest type
// of the higher category that holds both (uint8 with int8 gives int16; float16 with bfloat16
// gives float32), and result_type() applies the rule that a zero-dim tensor or a Scalar
// only promotes a dimensioned tensor when it belongs to a higher category.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>

#include "core/half.h"

namespace tg {

// Order is part of the ABI of boxed values (IValue stores a ScalarType as its integer).
#define TG_FORALL_SCALAR_TYPES(_) \
  _(uint8_t, Byte, uint8)         \
  _(int8_t, Char, int8)           \
  _(int16_t, Short, int16)        \
  _(int32_t, Int, int32)          \
  _(int64_t, Long, int64)         \
  _(Half, Half, float16)          \
  _(float, Float, float32)        \
  _(double, Double, float64)      \
  _(bool, Bool, bool)             \
  _(BFloat16, BFloat16, bfloat16)

enum class ScalarType : int8_t {
#define TG_DEFINE_ENUM(ctype, name, str) name,
  TG_FORALL_SCALAR_TYPES(TG_DEFINE_ENUM)
#undef TG_DEFINE_ENUM
  Undefined,
};

constexpr int kNumScalarTypes = static_cast<int>(ScalarType::Undefined);

// LibTorch's constants: tg::kFloat, tg::kFloat32, tg::kLong, ...
constexpr ScalarType kByte = ScalarType::Byte, kUInt8 = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char, kInt8 = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short, kInt16 = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int, kInt32 = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long, kInt64 = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half, kFloat16 = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float, kFloat32 = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double, kFloat64 = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;

// The name PyTorch prints: "float32", "int64", "bool", ...
std::string_view to_string(ScalarType t);
std::ostream& operator<<(std::ostream& out, ScalarType t);
// Parses "float32" and its aliases ("float", "double", "long", "half", ...); throws tg::ValueError.
ScalarType scalar_type_from_string(std::string_view name);

constexpr size_t element_size(ScalarType t) {
  switch (t) {
#define TG_SIZE_CASE(ctype, name, str) \
  case ScalarType::name:               \
    return sizeof(ctype);
    TG_FORALL_SCALAR_TYPES(TG_SIZE_CASE)
#undef TG_SIZE_CASE
    default:
      return 0;
  }
}

constexpr bool is_floating_type(ScalarType t) {
  return t == kDouble || t == kFloat || t == kHalf || t == kBFloat16;
}
constexpr bool is_integral_type(ScalarType t, bool include_bool) {
  return t == kByte || t == kChar || t == kShort || t == kInt || t == kLong || (include_bool && t == kBool);
}
constexpr bool is_signed_type(ScalarType t) { return t != kByte && t != kBool; }

// The ScalarType of a C++ element type: CppTypeToScalarType<float>::value == kFloat.
template <typename T>
struct CppTypeToScalarType;
#define TG_CPP_TO_SCALAR(ctype, name, str)                    \
  template <>                                                 \
  struct CppTypeToScalarType<ctype> {                         \
    static constexpr ScalarType value = ScalarType::name;     \
  };
TG_FORALL_SCALAR_TYPES(TG_CPP_TO_SCALAR)
#undef TG_CPP_TO_SCALAR

// The smallest type that can represent values of both a and b (PyTorch's promoteTypes).
ScalarType promote_types(ScalarType a, ScalarType b);

// The default floating type for Python-float Scalars and for factories (float32).
ScalarType default_dtype();
void set_default_dtype(ScalarType t);  // must be floating; throws tg::TypeError otherwise

// Accumulates operands of an operation and yields PyTorch's result type.
// Operands have three priorities: dimensioned tensors > zero-dim tensors > wrapped Scalars;
// a lower-priority operand participates only when its category is higher. A wrapped
// floating Scalar counts as the default dtype, so int_tensor + 2.5 is float32.
class ResultTypeState {
 public:
  void add_tensor(ScalarType dtype, int64_t dim);
  void add_scalar(ScalarType scalar_type);  // the type of a Scalar or a wrapped number
  ScalarType result() const;

 private:
  ScalarType dim_result_ = ScalarType::Undefined;
  ScalarType zero_dim_result_ = ScalarType::Undefined;
  ScalarType wrapped_result_ = ScalarType::Undefined;
};

}  // namespace tg
