// Tests for ScalarType: names and parsing, sizes and categories, the full promotion table
// checked against PyTorch's, ResultTypeState's priority rules, the default dtype, and the
// Half/BFloat16 conversions (exact values, round to nearest even, overflow, nan, subnormals).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include "core/error.h"
#include "core/half.h"
#include "core/scalar_type.h"

namespace {

using tg::ScalarType;

constexpr ScalarType kAllTypes[] = {tg::kByte, tg::kChar,   tg::kShort, tg::kInt,  tg::kLong,
                                    tg::kHalf, tg::kFloat,  tg::kDouble, tg::kBool, tg::kBFloat16};

// Restores the default dtype when a test that changes it ends, even by an exception.
struct DefaultDtypeGuard {
  ScalarType saved = tg::default_dtype();
  ~DefaultDtypeGuard() { tg::set_default_dtype(saved); }
};

float bits_to_float(uint32_t bits) { return tg::detail::bits_float(bits); }

}  // namespace

TEST_CASE("scalar_type: to_string gives PyTorch's names") {
  CHECK(tg::to_string(tg::kByte) == "uint8");
  CHECK(tg::to_string(tg::kChar) == "int8");
  CHECK(tg::to_string(tg::kShort) == "int16");
  CHECK(tg::to_string(tg::kInt) == "int32");
  CHECK(tg::to_string(tg::kLong) == "int64");
  CHECK(tg::to_string(tg::kHalf) == "float16");
  CHECK(tg::to_string(tg::kFloat) == "float32");
  CHECK(tg::to_string(tg::kDouble) == "float64");
  CHECK(tg::to_string(tg::kBool) == "bool");
  CHECK(tg::to_string(tg::kBFloat16) == "bfloat16");
  CHECK(tg::to_string(ScalarType::Undefined) == "undefined");

  std::ostringstream out;
  out << tg::kFloat << "," << tg::kLong;
  CHECK(out.str() == "float32,int64");
}

TEST_CASE("scalar_type: LibTorch constant aliases name the same types") {
  CHECK(tg::kUInt8 == tg::kByte);
  CHECK(tg::kInt8 == tg::kChar);
  CHECK(tg::kInt16 == tg::kShort);
  CHECK(tg::kInt32 == tg::kInt);
  CHECK(tg::kInt64 == tg::kLong);
  CHECK(tg::kFloat16 == tg::kHalf);
  CHECK(tg::kFloat32 == tg::kFloat);
  CHECK(tg::kFloat64 == tg::kDouble);
  CHECK(tg::kNumScalarTypes == 10);
}

TEST_CASE("scalar_type: scalar_type_from_string parses every canonical name") {
  for (ScalarType t : kAllTypes) {
    CAPTURE(t);
    CHECK(tg::scalar_type_from_string(tg::to_string(t)) == t);
  }
}

TEST_CASE("scalar_type: scalar_type_from_string accepts PyTorch's aliases") {
  CHECK(tg::scalar_type_from_string("float") == tg::kFloat);
  CHECK(tg::scalar_type_from_string("double") == tg::kDouble);
  CHECK(tg::scalar_type_from_string("half") == tg::kHalf);
  CHECK(tg::scalar_type_from_string("long") == tg::kLong);
  CHECK(tg::scalar_type_from_string("int") == tg::kInt);
  CHECK(tg::scalar_type_from_string("short") == tg::kShort);
}

TEST_CASE("scalar_type: an unknown dtype name is a ValueError that lists the valid names") {
  CHECK_THROWS_AS(tg::scalar_type_from_string("float128"), tg::ValueError);
  CHECK_THROWS_AS(tg::scalar_type_from_string(""), tg::ValueError);
  CHECK_THROWS_AS(tg::scalar_type_from_string("Float32"), tg::ValueError);  // names are case-sensitive
  try {
    tg::scalar_type_from_string("flaot32");
    FAIL("expected tg::ValueError");
  } catch (const tg::ValueError& e) {
    const std::string message = e.message();
    CHECK(message.find("[scalar_type]") == 0);
    CHECK(message.find("'flaot32'") != std::string::npos);
    CHECK(message.find("float32") != std::string::npos);
    CHECK(message.find("bfloat16") != std::string::npos);
  }
}

TEST_CASE("scalar_type: element_size is the size of the C++ element type") {
  CHECK(tg::element_size(tg::kByte) == 1);
  CHECK(tg::element_size(tg::kChar) == 1);
  CHECK(tg::element_size(tg::kShort) == 2);
  CHECK(tg::element_size(tg::kInt) == 4);
  CHECK(tg::element_size(tg::kLong) == 8);
  CHECK(tg::element_size(tg::kHalf) == 2);
  CHECK(tg::element_size(tg::kFloat) == 4);
  CHECK(tg::element_size(tg::kDouble) == 8);
  CHECK(tg::element_size(tg::kBool) == 1);
  CHECK(tg::element_size(tg::kBFloat16) == 2);
  CHECK(tg::element_size(ScalarType::Undefined) == 0);
  static_assert(tg::element_size(tg::kDouble) == 8, "element_size is usable at compile time");
}

TEST_CASE("scalar_type: categories (floating, integral, signed)") {
  for (ScalarType t : kAllTypes) {
    CAPTURE(t);
    const bool floating = t == tg::kHalf || t == tg::kFloat || t == tg::kDouble || t == tg::kBFloat16;
    const bool integral = t == tg::kByte || t == tg::kChar || t == tg::kShort || t == tg::kInt || t == tg::kLong;
    CHECK(tg::is_floating_type(t) == floating);
    CHECK(tg::is_integral_type(t, /*include_bool=*/false) == integral);
    CHECK(tg::is_integral_type(t, /*include_bool=*/true) == (integral || t == tg::kBool));
    CHECK(tg::is_signed_type(t) == (t != tg::kByte && t != tg::kBool));
  }
  CHECK_FALSE(tg::is_floating_type(ScalarType::Undefined));
  CHECK_FALSE(tg::is_integral_type(ScalarType::Undefined, true));
}

TEST_CASE("scalar_type: CppTypeToScalarType maps every element type") {
  CHECK(tg::CppTypeToScalarType<uint8_t>::value == tg::kByte);
  CHECK(tg::CppTypeToScalarType<int8_t>::value == tg::kChar);
  CHECK(tg::CppTypeToScalarType<int16_t>::value == tg::kShort);
  CHECK(tg::CppTypeToScalarType<int32_t>::value == tg::kInt);
  CHECK(tg::CppTypeToScalarType<int64_t>::value == tg::kLong);
  CHECK(tg::CppTypeToScalarType<tg::Half>::value == tg::kHalf);
  CHECK(tg::CppTypeToScalarType<float>::value == tg::kFloat);
  CHECK(tg::CppTypeToScalarType<double>::value == tg::kDouble);
  CHECK(tg::CppTypeToScalarType<bool>::value == tg::kBool);
  CHECK(tg::CppTypeToScalarType<tg::BFloat16>::value == tg::kBFloat16);
}

// PyTorch's promoteTypes table (c10/core/ScalarType.cpp), restricted to the ten types
// tensorgen has and written out in tensorgen's enum order.
TEST_CASE("scalar_type: promote_types matches PyTorch's full table") {
  constexpr ScalarType u1 = tg::kByte, i1 = tg::kChar, i2 = tg::kShort, i4 = tg::kInt, i8 = tg::kLong;
  constexpr ScalarType f2 = tg::kHalf, f4 = tg::kFloat, f8 = tg::kDouble, b1 = tg::kBool, bf = tg::kBFloat16;
  constexpr ScalarType order[10] = {u1, i1, i2, i4, i8, f2, f4, f8, b1, bf};
  constexpr ScalarType expected[10][10] = {
      /*        u1  i1  i2  i4  i8  f2  f4  f8  b1  bf */
      /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, u1, bf},
      /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, i1, bf},
      /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, i2, bf},
      /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, i4, bf},
      /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, i8, bf},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, f2, f4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
      /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, b1, bf},
      /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, bf, bf},
  };
  for (int row = 0; row < 10; ++row) {
    for (int col = 0; col < 10; ++col) {
      CAPTURE(order[row]);
      CAPTURE(order[col]);
      CHECK(tg::promote_types(order[row], order[col]) == expected[row][col]);
    }
  }
}

TEST_CASE("scalar_type: promote_types spot checks from the PyTorch docs") {
  CHECK(tg::promote_types(tg::kByte, tg::kChar) == tg::kShort);
  CHECK(tg::promote_types(tg::kHalf, tg::kBFloat16) == tg::kFloat);
  CHECK(tg::promote_types(tg::kLong, tg::kHalf) == tg::kHalf);
  CHECK(tg::promote_types(tg::kBool, tg::kDouble) == tg::kDouble);
  CHECK(tg::promote_types(tg::kBool, tg::kByte) == tg::kByte);
}

TEST_CASE("scalar_type: promote_types is symmetric, idempotent and ignores Undefined") {
  for (ScalarType a : kAllTypes) {
    CAPTURE(a);
    CHECK(tg::promote_types(a, a) == a);
    CHECK(tg::promote_types(a, ScalarType::Undefined) == a);
    CHECK(tg::promote_types(ScalarType::Undefined, a) == a);
    CHECK(tg::promote_types(a, tg::kBool) == a);  // bool is the identity
    for (ScalarType b : kAllTypes) {
      CAPTURE(b);
      CHECK(tg::promote_types(a, b) == tg::promote_types(b, a));
    }
  }
}

TEST_CASE("scalar_type: promote_types is associative over the table") {
  for (ScalarType a : kAllTypes) {
    for (ScalarType b : kAllTypes) {
      for (ScalarType c : kAllTypes) {
        if (tg::promote_types(tg::promote_types(a, b), c) != tg::promote_types(a, tg::promote_types(b, c))) {
          CAPTURE(a);
          CAPTURE(b);
          CAPTURE(c);
          FAIL_CHECK("promote_types is not associative");
        }
      }
    }
  }
}

TEST_CASE("result_type: a floating Scalar with an integral tensor gives the default dtype") {
  tg::ResultTypeState state;
  state.add_tensor(tg::kLong, 2);
  state.add_scalar(tg::kDouble);
  CHECK(state.result() == tg::kFloat);
}

TEST_CASE("result_type: an integral Scalar does not widen an integral tensor") {
  tg::ResultTypeState state;
  state.add_tensor(tg::kInt, 1);
  state.add_scalar(tg::kLong);
  CHECK(state.result() == tg::kInt);

  tg::ResultTypeState small;
  small.add_tensor(tg::kByte, 3);
  small.add_scalar(tg::kLong);
  CHECK(small.result() == tg::kByte);
}

TEST_CASE("result_type: a zero-dim tensor of the same category does not widen") {
  tg::ResultTypeState ints;
  ints.add_tensor(tg::kByte, 1);
  ints.add_tensor(tg::kLong, 0);
  CHECK(ints.result() == tg::kByte);

  tg::ResultTypeState floats;
  floats.add_tensor(tg::kHalf, 2);
  floats.add_tensor(tg::kDouble, 0);
  CHECK(floats.result() == tg::kHalf);
}

TEST_CASE("result_type: a floating zero-dim tensor promotes an integral tensor to its own type") {
  tg::ResultTypeState state;
  state.add_tensor(tg::kInt, 2);
  state.add_tensor(tg::kDouble, 0);
  CHECK(state.result() == tg::kDouble);

  tg::ResultTypeState half;
  half.add_tensor(tg::kLong, 1);
  half.add_tensor(tg::kHalf, 0);
  CHECK(half.result() == tg::kHalf);
}

TEST_CASE("result_type: bool tensors") {
  tg::ResultTypeState with_int;
  with_int.add_tensor(tg::kBool, 1);
  with_int.add_scalar(tg::kLong);
  CHECK(with_int.result() == tg::kLong);

  tg::ResultTypeState with_bool;
  with_bool.add_tensor(tg::kBool, 1);
  with_bool.add_tensor(tg::kBool, 2);
  CHECK(with_bool.result() == tg::kBool);

  tg::ResultTypeState bool_scalar;
  bool_scalar.add_tensor(tg::kBool, 1);
  bool_scalar.add_scalar(tg::kBool);
  CHECK(bool_scalar.result() == tg::kBool);

  tg::ResultTypeState with_float_scalar;
  with_float_scalar.add_tensor(tg::kBool, 1);
  with_float_scalar.add_scalar(tg::kDouble);
  CHECK(with_float_scalar.result() == tg::kFloat);
}

TEST_CASE("result_type: dimensioned tensors promote among themselves") {
  tg::ResultTypeState state;
  state.add_tensor(tg::kInt, 1);
  state.add_tensor(tg::kLong, 3);
  CHECK(state.result() == tg::kLong);

  tg::ResultTypeState mixed;
  mixed.add_tensor(tg::kByte, 1);
  mixed.add_tensor(tg::kChar, 1);
  CHECK(mixed.result() == tg::kShort);
}

TEST_CASE("result_type: only scalars, only zero-dim tensors, and nothing at all") {
  tg::ResultTypeState scalars;
  scalars.add_scalar(tg::kLong);
  scalars.add_scalar(tg::kDouble);
  CHECK(scalars.result() == tg::kFloat);

  tg::ResultTypeState zero_dim;
  zero_dim.add_tensor(tg::kInt, 0);
  zero_dim.add_tensor(tg::kLong, 0);
  CHECK(zero_dim.result() == tg::kLong);

  tg::ResultTypeState zero_dim_and_scalar;
  zero_dim_and_scalar.add_tensor(tg::kInt, 0);
  zero_dim_and_scalar.add_scalar(tg::kLong);
  CHECK(zero_dim_and_scalar.result() == tg::kInt);

  CHECK(tg::ResultTypeState().result() == ScalarType::Undefined);
}

TEST_CASE("default_dtype: float32 by default; set_default_dtype changes the float-Scalar result") {
  CHECK(tg::default_dtype() == tg::kFloat);
  {
    DefaultDtypeGuard guard;
    tg::set_default_dtype(tg::kDouble);
    CHECK(tg::default_dtype() == tg::kDouble);
    tg::ResultTypeState state;
    state.add_tensor(tg::kLong, 1);
    state.add_scalar(tg::kDouble);
    CHECK(state.result() == tg::kDouble);

    // A floating tensor keeps its own type whatever the default.
    tg::ResultTypeState half;
    half.add_tensor(tg::kHalf, 1);
    half.add_scalar(tg::kDouble);
    CHECK(half.result() == tg::kHalf);
  }
  CHECK(tg::default_dtype() == tg::kFloat);
}

TEST_CASE("default_dtype: set_default_dtype rejects a non-floating dtype with a TypeError") {
  DefaultDtypeGuard guard;
  CHECK_THROWS_AS(tg::set_default_dtype(tg::kLong), tg::TypeError);
  CHECK_THROWS_AS(tg::set_default_dtype(tg::kBool), tg::TypeError);
  try {
    tg::set_default_dtype(tg::kInt);
    FAIL("expected tg::TypeError");
  } catch (const tg::TypeError& e) {
    CHECK(std::string(e.message()).find("[set_default_dtype]") == 0);
    CHECK(std::string(e.message()).find("int32") != std::string::npos);
  }
  CHECK(tg::default_dtype() == tg::kFloat);  // unchanged by the failed calls
}

TEST_CASE("half: exact values convert both ways") {
  struct Case {
    float value;
    uint16_t bits;
  };
  const Case cases[] = {
      {0.0f, 0x0000},       {-0.0f, 0x8000},  {1.0f, 0x3c00},     {-2.0f, 0xc000},
      {0.5f, 0x3800},       {1.5f, 0x3e00},   {65504.0f, 0x7bff}, {-65504.0f, 0xfbff},
      {0.333251953125f, 0x3555},  // the half nearest 1/3
      {6.103515625e-05f, 0x0400},   // 2^-14, the smallest normal
      {5.9604644775390625e-08f, 0x0001},  // 2^-24, the smallest subnormal
      {6.0975551605224609e-05f, 0x03ff},  // the largest subnormal, 1023 * 2^-24
  };
  for (const Case& c : cases) {
    CAPTURE(c.value);
    CHECK(tg::Half(c.value).bits == c.bits);
    CHECK(static_cast<float>(tg::Half::from_bits(c.bits)) == c.value);
  }
  CHECK(std::signbit(static_cast<float>(tg::Half::from_bits(0x8000))));
}

TEST_CASE("half: every finite half round-trips through float") {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const uint16_t h = static_cast<uint16_t>(bits);
    if ((h & 0x7c00u) == 0x7c00u) continue;  // inf and nan
    const float f = tg::Half::from_bits(h);
    if (tg::Half(f).bits != h) {
      CAPTURE(bits);
      FAIL_CHECK("half round trip changed the bits");
    }
  }
}

TEST_CASE("half: rounding is to nearest, ties to even") {
  // Between 1 and 1 + 2^-10 (the next half), 2^-11 is the midpoint: ties go to the even 1.0.
  CHECK(tg::Half(1.0f + 0x1p-11f).bits == 0x3c00);
  // The midpoint between 1 + 2^-10 (odd) and 1 + 2^-9 (even) rounds up to the even one.
  CHECK(tg::Half(1.0f + 3 * 0x1p-11f).bits == 0x3c02);
  // Just above a midpoint rounds up; just below rounds down.
  CHECK(tg::Half(1.0f + 0x1p-11f + 0x1p-20f).bits == 0x3c01);
  CHECK(tg::Half(1.0f + 0x1p-11f - 0x1p-20f).bits == 0x3c00);
  // Rounding up can carry into the exponent: the largest float below 2 rounds to 2.
  CHECK(tg::Half(1.99999f).bits == 0x4000);
  // 2049 is halfway between 2048 and 2050: even mantissa wins.
  CHECK(tg::Half(2049.0f).bits == tg::Half(2048.0f).bits);
  CHECK(tg::Half(2051.0f).bits == tg::Half(2052.0f).bits);
}

TEST_CASE("half: overflow goes to infinity at the rounding boundary") {
  CHECK(tg::Half(65519.0f).bits == 0x7bff);  // below the midpoint 65520: largest finite
  CHECK(tg::Half(65520.0f).bits == 0x7c00);  // midpoint, ties to even = infinity
  CHECK(tg::Half(70000.0f).bits == 0x7c00);
  CHECK(tg::Half(-1e10f).bits == 0xfc00);
  CHECK(tg::Half(std::numeric_limits<float>::infinity()).bits == 0x7c00);
  CHECK(tg::Half(-std::numeric_limits<float>::infinity()).bits == 0xfc00);
  CHECK(std::isinf(static_cast<float>(tg::Half::from_bits(0x7c00))));
  CHECK(static_cast<float>(tg::Half::from_bits(0xfc00)) < 0);
}

TEST_CASE("half: nan stays nan in both directions") {
  const tg::Half h(std::numeric_limits<float>::quiet_NaN());
  CHECK((h.bits & 0x7c00u) == 0x7c00u);
  CHECK((h.bits & 0x03ffu) != 0);
  CHECK(std::isnan(static_cast<float>(h)));
  CHECK(std::isnan(static_cast<float>(tg::Half::from_bits(0x7e00))));
  CHECK(std::isnan(static_cast<float>(tg::Half::from_bits(0x7c01))));  // a signalling-pattern nan
  // A float nan whose payload sits only in the low bits must not collapse to infinity.
  CHECK(std::isnan(static_cast<float>(tg::Half(bits_to_float(0x7f800001u)))));
}

TEST_CASE("half: subnormals and underflow") {
  CHECK(static_cast<float>(tg::Half::from_bits(0x0001)) == std::ldexp(1.0f, -24));
  CHECK(static_cast<float>(tg::Half::from_bits(0x0200)) == std::ldexp(1.0f, -15));
  CHECK(static_cast<float>(tg::Half::from_bits(0x8003)) == -3 * std::ldexp(1.0f, -24));
  CHECK(tg::Half(std::ldexp(5.0f, -24)).bits == 0x0005);
  // Half the smallest subnormal is a tie between 0 and 2^-24: ties to even gives 0.
  CHECK(tg::Half(std::ldexp(1.0f, -25)).bits == 0x0000);
  CHECK(tg::Half(-std::ldexp(1.0f, -25)).bits == 0x8000);
  // 1.5 * 2^-24 ties between 1 and 2 subnormal steps: even is 2.
  CHECK(tg::Half(std::ldexp(3.0f, -25)).bits == 0x0002);
  // Just above half the smallest subnormal rounds up to it.
  CHECK(tg::Half(std::ldexp(1.0f, -25) * 1.001f).bits == 0x0001);
  // Far below the grid, and float subnormals, flush to a signed zero.
  CHECK(tg::Half(1e-30f).bits == 0x0000);
  CHECK(tg::Half(std::numeric_limits<float>::denorm_min()).bits == 0x0000);
  CHECK(tg::Half(-1e-30f).bits == 0x8000);
  // A value just below the smallest normal rounds up into it.
  CHECK(tg::Half(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)).bits == 0x0400);
}

TEST_CASE("bfloat16: exact values, rounding, overflow and nan") {
  CHECK(tg::BFloat16(1.0f).bits == 0x3f80);
  CHECK(tg::BFloat16(-2.0f).bits == 0xc000);
  CHECK(tg::BFloat16(0.0f).bits == 0x0000);
  CHECK(tg::BFloat16(-0.0f).bits == 0x8000);
  CHECK(static_cast<float>(tg::BFloat16::from_bits(0x3f80)) == 1.0f);
  CHECK(static_cast<float>(tg::BFloat16::from_bits(0x4049)) == 3.140625f);
  CHECK(tg::BFloat16(3.14159265f).bits == 0x4049);
  // bfloat16 keeps float32's exponent range: 1e38 is finite.
  CHECK(std::isfinite(static_cast<float>(tg::BFloat16(1e38f))));
  // Ties to even: 1 + 2^-8 is the midpoint of 1 and 1 + 2^-7.
  CHECK(tg::BFloat16(1.0f + 0x1p-8f).bits == 0x3f80);
  CHECK(tg::BFloat16(1.0f + 3 * 0x1p-8f).bits == 0x3f82);
  CHECK(tg::BFloat16(1.0f + 0x1p-8f + 0x1p-20f).bits == 0x3f81);
  // The largest float rounds past bfloat16's largest finite value: infinity.
  CHECK(tg::BFloat16(std::numeric_limits<float>::max()).bits == 0x7f80);
  CHECK(tg::BFloat16(-std::numeric_limits<float>::max()).bits == 0xff80);
  CHECK(tg::BFloat16(std::numeric_limits<float>::infinity()).bits == 0x7f80);
  // Nan stays nan, even one whose payload is only in the bits that get dropped.
  CHECK(std::isnan(static_cast<float>(tg::BFloat16(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(std::isnan(static_cast<float>(tg::BFloat16(bits_to_float(0x7f800001u)))));
  // Subnormal floats keep their top bits.
  CHECK(tg::BFloat16(bits_to_float(0x00010000u)).bits == 0x0001);
}

TEST_CASE("bfloat16: every finite bfloat16 round-trips through float") {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const uint16_t b = static_cast<uint16_t>(bits);
    if ((b & 0x7f80u) == 0x7f80u) continue;  // inf and nan
    const float f = tg::BFloat16::from_bits(b);
    if (tg::BFloat16(f).bits != b) {
      CAPTURE(bits);
      FAIL_CHECK("bfloat16 round trip changed the bits");
    }
  }
}

TEST_CASE("half: printing shows the float value") {
  std::ostringstream out;
  out << tg::Half(1.5f) << " " << tg::BFloat16(2.0f);
  CHECK(out.str() == "1.5 2");
}
