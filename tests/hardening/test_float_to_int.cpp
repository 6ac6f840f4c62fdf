// Found by the sanitized leg: converting a floating value an integer dtype cannot hold (NaN,
// infinities, 1e30 to int64, -1.0 to uint8) was a plain static_cast, undefined behaviour that
// UBSan stops on. The conversion now has a defined result (See Note [Floating to integer
// conversion] in kernels/cpu/convert.h); these cases fail under UBSan without it.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <tensorgen/tensorgen.h>

namespace {

template <typename T>
std::vector<T> converted(const std::vector<double>& values, tg::ScalarType from, tg::ScalarType to) {
  tg::Tensor t = tg::tensor(values, tg::TensorOptions().dtype(from)).to(to).contiguous();
  const T* data = t.data_ptr<T>();
  return std::vector<T>(data, data + t.numel());
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kIndefinite = std::numeric_limits<int64_t>::min();

}  // namespace

TEST_CASE("to(kLong): values outside int64 give INT64_MIN, those inside truncate toward zero") {
  for (tg::ScalarType from : {tg::kDouble, tg::kFloat, tg::kHalf, tg::kBFloat16}) {
    CAPTURE(from);
    const std::vector<int64_t> got =
        converted<int64_t>({kNaN, kInf, -kInf, 1e30, -1e30, 2.5, -2.5, 0.0}, from, tg::kLong);
    CHECK(got == std::vector<int64_t>{kIndefinite, kIndefinite, kIndefinite, kIndefinite, kIndefinite, 2, -2, 0});
  }
  // The bounds: -2^63 is representable, 2^63 is not.
  CHECK(converted<int64_t>({-9223372036854775808.0, 9223372036854775808.0}, tg::kDouble, tg::kLong) ==
        std::vector<int64_t>{kIndefinite, kIndefinite});
  CHECK(converted<int64_t>({4611686018427387904.0}, tg::kDouble, tg::kLong) ==
        std::vector<int64_t>{int64_t(1) << 62});
}

TEST_CASE("to(narrower integers): through int32 (INT32_MIN outside it), then the low bits, as x86 converts") {
  CHECK(converted<uint8_t>({-1.0, 300.0, 2.9, -2.9, kNaN}, tg::kFloat, tg::kByte) ==
        std::vector<uint8_t>{255, 44, 2, 254, 0});
  CHECK(converted<int8_t>({200.0, -129.0}, tg::kDouble, tg::kChar) == std::vector<int8_t>{-56, 127});
  constexpr int32_t kIndefinite32 = std::numeric_limits<int32_t>::min();
  CHECK(converted<int32_t>({3e9, kInf, -2147483648.0, 2147483647.9}, tg::kDouble, tg::kInt) ==
        std::vector<int32_t>{kIndefinite32, kIndefinite32, kIndefinite32, 2147483647});
  CHECK(converted<int16_t>({40000.0, 5e9}, tg::kFloat, tg::kShort) == std::vector<int16_t>{-25536, 0});
  CHECK(converted<bool>({kNaN, 0.0, -0.0, 1e-30}, tg::kDouble, tg::kBool) == std::vector<bool>{true, false, false, true});
}

TEST_CASE("copy_ into an integer tensor converts the same way") {
  tg::Tensor dst = tg::zeros({3}, tg::TensorOptions().dtype(tg::kLong));
  dst.copy_(tg::tensor(std::vector<double>{kNaN, 7.9, -1e300}, tg::TensorOptions().dtype(tg::kDouble)));
  const int64_t* data = dst.data_ptr<int64_t>();
  CHECK(std::vector<int64_t>(data, data + 3) == std::vector<int64_t>{kIndefinite, 7, kIndefinite});
}

// The same conversion for one number: a floating Scalar that an integer type cannot hold was a
// plain static_cast (UBSan: "-inf is outside the range of int", from the operator sweep). It now
// raises tg::Error, as c10's checked Scalar conversion does.
TEST_CASE("Scalar::to<integer>: values the type cannot hold raise tg::Error, the others truncate") {
  CHECK(tg::Scalar(2.9).to<int>() == 2);
  CHECK(tg::Scalar(-2.9).to<int64_t>() == -2);
  CHECK(tg::Scalar(255.5).to<uint8_t>() == 255);
  CHECK(tg::Scalar(-0.5).to<uint8_t>() == 0);  // truncates to 0, which uint8 holds
  CHECK(tg::Scalar(-2147483648.0).toInt() == std::numeric_limits<int>::min());
  CHECK_THROWS_AS(tg::Scalar(-kInf).toInt(), tg::Error);
  CHECK_THROWS_AS(tg::Scalar(kNaN).toLong(), tg::Error);
  CHECK_THROWS_AS(tg::Scalar(2147483648.0).toInt(), tg::Error);
  CHECK_THROWS_AS(tg::Scalar(1e30).toLong(), tg::Error);
  CHECK_THROWS_AS(tg::Scalar(-1.0).to<uint8_t>(), tg::Error);
  CHECK_THROWS_AS(tg::Scalar(256.0).to<uint8_t>(), tg::Error);
  CHECK(std::isnan(tg::Scalar(kNaN).toDouble()));  // floating targets are unchanged
  // Through an operator: filling an integer tensor with NaN is refused, as in LibTorch.
  CHECK_THROWS_AS(tg::zeros({3}, tg::TensorOptions().dtype(tg::kInt)).fill_(kNaN), tg::Error);
}
