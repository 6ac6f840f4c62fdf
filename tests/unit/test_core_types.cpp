// Tests for the small core types: tg::Error and the check macros, Device, Scalar,
// TensorOptions, ArrayRef, maybe_wrap_dim, IntrusivePtr and the "did you mean" helpers.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/array_ref.h"
#include "core/device.h"
#include "core/error.h"
#include "core/intrusive_ptr.h"
#include "core/scalar.h"
#include "core/suggest.h"
#include "core/tensor_options.h"
#include "core/wrap_dim.h"

namespace {

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Runs `f`, which must throw E, and returns the error's message (empty if it did not throw).
template <typename E, typename F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.message();
  }
  return std::string();
}

int checked_divide(int a, int b) {
  TG_CHECK_VALUE(b != 0, "[divide] division by zero: ", a, " / ", b);
  return a / b;
}

// An object that counts its live instances, to see IntrusivePtr delete exactly once.
struct Counted : tg::RefCounted {
  explicit Counted(int v, int* live) : value(v), live_(live) { ++*live_; }
  ~Counted() override { --*live_; }
  int value;

 private:
  int* live_;
};

struct DerivedCounted : Counted {
  using Counted::Counted;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// tg::Error and the check macros

TEST_CASE("error: what() is the message followed by file:line") {
  const int line = __LINE__ + 2;
  try {
    TG_CHECK(1 + 1 == 3, "[arith] expected ", 3, ", got ", 1 + 1);
    FAIL("TG_CHECK did not throw");
  } catch (const tg::Error& e) {
    const std::string what = e.what();
    CHECK(e.message() == "[arith] expected 3, got 2");
    CHECK(what.find("[arith] expected 3, got 2") == 0);
    CHECK(contains(what, "test_core_types.cpp:" + std::to_string(line)));
    CHECK(e.location().line == line);
    CHECK(contains(e.location().file, "test_core_types.cpp"));
    CHECK(std::string(e.location().function).size() > 0);
    CHECK_FALSE(contains(e.message(), "test_core_types.cpp"));  // message() excludes the location
  }
}

TEST_CASE("error: a passing check does not throw and does not evaluate its message") {
  int evaluated = 0;
  auto side_effect = [&] {
    ++evaluated;
    return "x";
  };
  CHECK_NOTHROW(TG_CHECK(true, "never ", side_effect()));
  CHECK(evaluated == 0);
  CHECK(checked_divide(6, 3) == 2);
}

TEST_CASE("error: subclasses are caught as tg::Error and as std::exception") {
  CHECK_THROWS_AS(TG_THROW(IndexError, "i"), tg::IndexError);
  CHECK_THROWS_AS(TG_THROW(IndexError, "i"), tg::Error);
  CHECK_THROWS_AS(TG_THROW(ValueError, "v"), std::exception);
  CHECK_THROWS_AS(TG_THROW(OutOfMemoryError, "m"), tg::Error);
  CHECK_THROWS_AS(TG_ERROR("plain"), tg::Error);
  static_assert(std::is_base_of_v<tg::Error, tg::IndexError>);
  static_assert(std::is_base_of_v<tg::Error, tg::ValueError>);
  static_assert(std::is_base_of_v<tg::Error, tg::TypeError>);
  static_assert(std::is_base_of_v<tg::Error, tg::NotImplementedError>);
  static_assert(std::is_base_of_v<tg::Error, tg::OutOfMemoryError>);
  static_assert(std::is_base_of_v<std::exception, tg::Error>);

  try {
    TG_THROW(TypeError, "[op] wrong type");
    FAIL("TG_THROW did not throw");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find("[op] wrong type (at ") == 0);
  }
}

TEST_CASE("error: each TG_CHECK_* macro throws its own subclass with the formatted message") {
  CHECK_THROWS_AS(TG_CHECK_INDEX(false, "x"), tg::IndexError);
  CHECK_THROWS_AS(TG_CHECK_VALUE(false, "x"), tg::ValueError);
  CHECK_THROWS_AS(TG_CHECK_TYPE(false, "x"), tg::TypeError);
  CHECK_THROWS_AS(TG_CHECK_NOT_IMPLEMENTED(false, "x"), tg::NotImplementedError);

  // The plain TG_CHECK raises the base class, not one of the subclasses.
  try {
    TG_CHECK(false, "base");
    FAIL("TG_CHECK did not throw");
  } catch (const tg::IndexError&) {
    FAIL("TG_CHECK raised IndexError");
  } catch (const tg::ValueError&) {
    FAIL("TG_CHECK raised ValueError");
  } catch (const tg::TypeError&) {
    FAIL("TG_CHECK raised TypeError");
  } catch (const tg::Error& e) {
    CHECK(e.message() == "base");
  }

  CHECK(message_of<tg::ValueError>([] { checked_divide(7, 0); }) == "[divide] division by zero: 7 / 0");
  CHECK(message_of<tg::IndexError>([] { TG_CHECK_INDEX(false, "[op] ", 1.5, ' ', std::string("s"), ' ', true); }) ==
        "[op] 1.5 s 1");
  CHECK(message_of<tg::Error>([] { TG_CHECK(false); }).empty());
}

TEST_CASE("error: TG_INTERNAL_ASSERT says it is a bug and names the condition") {
  const std::string message = message_of<tg::Error>([] {
    const int n = 3;
    TG_INTERNAL_ASSERT(n == 4, "n is ", n);
  });
  CHECK(contains(message, "internal assert failed"));
  CHECK(contains(message, "n == 4"));
  CHECK(contains(message, "n is 3"));
  CHECK(contains(message, "bug in tensorgen"));

  const std::string bare = message_of<tg::Error>([] { TG_INTERNAL_ASSERT(1 > 2); });
  CHECK(contains(bare, "1 > 2"));
  CHECK(contains(bare, "bug in tensorgen"));
  CHECK_NOTHROW(TG_INTERNAL_ASSERT(2 > 1, "fine"));
}

// ---------------------------------------------------------------------------------------------
// Device

TEST_CASE("device: parses cpu, cuda and cuda:N") {
  const tg::Device cpu("cpu");
  CHECK(cpu.type() == tg::kCPU);
  CHECK(cpu.index() == -1);
  CHECK_FALSE(cpu.has_index());
  CHECK(cpu.is_cpu());
  CHECK_FALSE(cpu.is_cuda());

  const tg::Device cuda("cuda");
  CHECK(cuda.is_cuda());
  CHECK(cuda.index() == -1);

  const tg::Device cuda1(std::string_view("cuda:1"));
  CHECK(cuda1.type() == tg::kCUDA);
  CHECK(cuda1.index() == 1);
  CHECK(cuda1.has_index());

  CHECK(tg::Device("cuda:127").index() == 127);
  CHECK(tg::Device("cpu:0").index() == 0);
}

TEST_CASE("device: malformed strings are ValueErrors that show the expected form") {
  for (const char* bad : {"gpu", "cuda:x", "cuda:-1", "cuda:", "CUDA", "", "cuda:1:2", "cuda:1x", "cuda:128", "cpu:1",
                          " cuda", "cuda:01x"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(tg::Device{std::string_view(bad)}, tg::ValueError);
  }
  const std::string message = message_of<tg::ValueError>([] { tg::Device("gpu"); });
  CHECK(message.find("[Device]") == 0);
  CHECK(contains(message, "'gpu'"));
  CHECK(contains(message, "cuda:1"));
  CHECK(contains(message_of<tg::ValueError>([] { tg::Device("cuda:x"); }), "'cuda:x'"));
}

TEST_CASE("device: constructing from a type checks the index") {
  CHECK(tg::Device(tg::kCUDA, 3).index() == 3);
  CHECK_THROWS_AS(tg::Device(tg::kCUDA, -2), tg::ValueError);
  CHECK_THROWS_AS(tg::Device(tg::kCPU, 1), tg::ValueError);
  CHECK_NOTHROW(tg::Device(tg::kCPU, 0));
}

TEST_CASE("device: str() and operator<<") {
  CHECK(tg::Device("cpu").str() == "cpu");
  CHECK(tg::Device("cuda").str() == "cuda");
  CHECK(tg::Device("cuda:1").str() == "cuda:1");
  CHECK(tg::Device(tg::kCUDA, 12).str() == "cuda:12");
  CHECK(tg::Device(tg::kCPU, 0).str() == "cpu:0");
  std::ostringstream out;
  out << tg::Device("cuda:2") << " " << tg::kCPU << " " << tg::kCUDA;
  CHECK(out.str() == "cuda:2 cpu cuda");
  // str() parses back to an equal device.
  for (const char* text : {"cpu", "cuda", "cuda:0", "cuda:5"}) {
    CHECK(tg::Device(tg::Device(text).str()) == tg::Device(text));
  }
}

TEST_CASE("device: equality compares type and index") {
  CHECK(tg::Device("cuda:1") == tg::Device(tg::kCUDA, 1));
  CHECK(tg::Device("cuda:1") != tg::Device("cuda:0"));
  CHECK(tg::Device("cuda") != tg::Device("cuda:0"));  // "current" is not device 0
  CHECK(tg::Device("cpu") != tg::Device("cuda"));
  CHECK(tg::Device("cpu") == tg::Device(tg::kCPU));
}

TEST_CASE("device: hash agrees with equality and separates distinct devices") {
  const std::hash<tg::Device> hash;
  CHECK(hash(tg::Device("cuda:1")) == hash(tg::Device(tg::kCUDA, 1)));
  std::unordered_set<tg::Device> devices;
  for (const char* text : {"cpu", "cpu:0", "cuda", "cuda:0", "cuda:1", "cuda:127", "cuda:1"}) devices.insert(tg::Device(text));
  CHECK(devices.size() == 6);
  std::unordered_set<size_t> hashes;
  for (const tg::Device& d : devices) hashes.insert(hash(d));
  CHECK(hashes.size() == 6);
}

// ---------------------------------------------------------------------------------------------
// Scalar

TEST_CASE("scalar: construction records the kind") {
  const tg::Scalar from_int(3);
  CHECK(from_int.type() == tg::kLong);
  CHECK(from_int.is_integral(false));
  CHECK_FALSE(from_int.is_floating_point());
  CHECK_FALSE(from_int.is_boolean());

  const tg::Scalar from_int64(int64_t{1} << 40);
  CHECK(from_int64.toLong() == (int64_t{1} << 40));

  const tg::Scalar from_double(2.5);
  CHECK(from_double.type() == tg::kDouble);
  CHECK(from_double.is_floating_point());
  CHECK_FALSE(from_double.is_integral(true));

  const tg::Scalar from_float(0.25f);
  CHECK(from_float.type() == tg::kDouble);
  CHECK(from_float.toDouble() == 0.25);

  const tg::Scalar from_bool(true);
  CHECK(from_bool.type() == tg::kBool);
  CHECK(from_bool.is_boolean());
  CHECK(from_bool.is_integral(true));
  CHECK_FALSE(from_bool.is_integral(false));

  CHECK(tg::Scalar(uint8_t{200}).type() == tg::kLong);
  CHECK(tg::Scalar(uint8_t{200}).toLong() == 200);
  CHECK(tg::Scalar(int16_t{-5}).toLong() == -5);
  CHECK(tg::Scalar(tg::Half(1.5f)).type() == tg::kDouble);
  CHECK(tg::Scalar(tg::Half(1.5f)).toDouble() == 1.5);
  CHECK(tg::Scalar(tg::BFloat16(-2.0f)).toDouble() == -2.0);

  const tg::Scalar zero;
  CHECK(zero.type() == tg::kLong);
  CHECK(zero.toLong() == 0);
}

TEST_CASE("scalar: to<T> converts like static_cast") {
  const tg::Scalar d(2.75);
  CHECK(d.to<double>() == 2.75);
  CHECK(d.to<float>() == 2.75f);
  CHECK(d.to<int64_t>() == 2);
  CHECK(d.to<int>() == 2);
  CHECK(tg::Scalar(-2.75).to<int>() == -2);  // truncation toward zero
  CHECK(d.to<bool>() == true);
  CHECK(tg::Scalar(0.0).to<bool>() == false);
  CHECK(d.to<tg::Half>().bits == tg::Half(2.75f).bits);
  CHECK(d.to<tg::BFloat16>().bits == tg::BFloat16(2.75f).bits);

  const tg::Scalar i(7);
  CHECK(i.to<double>() == 7.0);
  CHECK(i.to<float>() == 7.0f);
  CHECK(i.to<int8_t>() == 7);
  CHECK(i.to<bool>() == true);
  CHECK(tg::Scalar(0).to<bool>() == false);
  CHECK(static_cast<float>(i.to<tg::Half>()) == 7.0f);
  CHECK(static_cast<float>(i.to<tg::BFloat16>()) == 7.0f);
  CHECK(tg::Scalar(300).to<uint8_t>() == 44);  // wraps, like static_cast

  const tg::Scalar b(true);
  CHECK(b.to<int64_t>() == 1);
  CHECK(b.to<double>() == 1.0);
  CHECK(b.toBool());
  CHECK(tg::Scalar(false).toLong() == 0);

  CHECK(tg::Scalar(9).toInt() == 9);
  CHECK(tg::Scalar(1.5).toFloat() == 1.5f);
}

TEST_CASE("scalar: negation keeps the kind; negating a bool is a TypeError") {
  const tg::Scalar neg_int = -tg::Scalar(5);
  CHECK(neg_int.type() == tg::kLong);
  CHECK(neg_int.toLong() == -5);
  const tg::Scalar neg_double = -tg::Scalar(1.5);
  CHECK(neg_double.type() == tg::kDouble);
  CHECK(neg_double.toDouble() == -1.5);
  CHECK((-tg::Scalar(-(int64_t{1} << 50))).toLong() == (int64_t{1} << 50));

  CHECK_THROWS_AS(-tg::Scalar(true), tg::TypeError);
  CHECK(contains(message_of<tg::TypeError>([] { (void)-tg::Scalar(false); }), "logical_not"));
}

TEST_CASE("scalar: equal compares values across kinds") {
  CHECK(tg::Scalar(2).equal(tg::Scalar(2.0)));
  CHECK(tg::Scalar(2.0).equal(tg::Scalar(2)));
  CHECK_FALSE(tg::Scalar(2).equal(tg::Scalar(2.5)));
  CHECK(tg::Scalar(true).equal(tg::Scalar(1)));
  CHECK_FALSE(tg::Scalar(false).equal(tg::Scalar(1)));
  CHECK(tg::Scalar(-3).equal(tg::Scalar(-3)));
  CHECK_FALSE(tg::Scalar(-3).equal(tg::Scalar(3)));
  // Large int64 values compare exactly, not through double.
  const int64_t big = (int64_t{1} << 53) + 1;
  CHECK_FALSE(tg::Scalar(big).equal(tg::Scalar(big - 1)));
  CHECK_FALSE(tg::Scalar(std::numeric_limits<double>::quiet_NaN()).equal(tg::Scalar(std::numeric_limits<double>::quiet_NaN())));
}

TEST_CASE("scalar: operator<< prints the value") {
  std::ostringstream out;
  out << tg::Scalar(3) << " " << tg::Scalar(2.5) << " " << tg::Scalar(true) << " " << tg::Scalar(false);
  CHECK(out.str() == "3 2.5 true false");
}

// ---------------------------------------------------------------------------------------------
// TensorOptions

TEST_CASE("tensor_options: defaults are float32, cpu, strided, no grad") {
  const tg::TensorOptions options;
  CHECK(options.dtype() == tg::kFloat);
  CHECK(options.device() == tg::Device(tg::kCPU));
  CHECK(options.layout() == tg::kStrided);
  CHECK_FALSE(options.requires_grad());
  CHECK_FALSE(options.pinned_memory());
  CHECK_FALSE(options.has_dtype());
  CHECK_FALSE(options.has_device());
  CHECK_FALSE(options.dtype_opt().has_value());
  CHECK_FALSE(options.device_opt().has_value());
  CHECK_FALSE(options.layout_opt().has_value());
}

TEST_CASE("tensor_options: an unset dtype follows the default dtype") {
  const tg::ScalarType saved = tg::default_dtype();
  tg::set_default_dtype(tg::kDouble);
  const tg::ScalarType seen = tg::TensorOptions().dtype();
  const tg::ScalarType explicit_dtype = tg::TensorOptions(tg::kHalf).dtype();
  tg::set_default_dtype(saved);
  CHECK(seen == tg::kDouble);
  CHECK(explicit_dtype == tg::kHalf);
}

TEST_CASE("tensor_options: builders return a changed copy") {
  const tg::TensorOptions base;
  const tg::TensorOptions built =
      base.dtype(tg::kLong).device(tg::Device("cuda:1")).layout(tg::kStrided).requires_grad(true).pinned_memory(true);
  CHECK(built.dtype() == tg::kLong);
  CHECK(built.device() == tg::Device(tg::kCUDA, 1));
  CHECK(built.requires_grad());
  CHECK(built.pinned_memory());
  CHECK(built.has_dtype());
  CHECK(built.has_device());
  CHECK(built.layout_opt() == tg::kStrided);
  // The original is untouched.
  CHECK_FALSE(base.has_dtype());
  CHECK_FALSE(base.requires_grad());

  // Passing nullopt clears a field again.
  const tg::TensorOptions cleared = built.dtype(std::nullopt).device(std::nullopt).requires_grad(std::nullopt);
  CHECK_FALSE(cleared.has_dtype());
  CHECK_FALSE(cleared.has_device());
  CHECK_FALSE(cleared.requires_grad());
}

TEST_CASE("tensor_options: implicit conversions from ScalarType, Device, DeviceType and strings") {
  auto take = [](const tg::TensorOptions& options) { return options; };
  CHECK(take(tg::kHalf).dtype() == tg::kHalf);
  CHECK(take(tg::kHalf).has_dtype());
  CHECK_FALSE(take(tg::kHalf).has_device());
  CHECK(take(tg::Device(tg::kCUDA, 2)).device() == tg::Device("cuda:2"));
  CHECK(take(tg::kCUDA).device() == tg::Device("cuda"));
  CHECK(take("cuda:0").device() == tg::Device(tg::kCUDA, 0));
  CHECK_FALSE(take("cuda:0").has_dtype());
  CHECK(take(tg::kStrided).layout_opt() == tg::kStrided);
  CHECK_THROWS_AS(take("tpu"), tg::ValueError);
}

TEST_CASE("tensor_options: tg::dtype(), tg::device() and tg::requires_grad() helpers") {
  CHECK(tg::dtype(tg::kInt).dtype() == tg::kInt);
  CHECK_FALSE(tg::dtype(tg::kInt).has_device());
  CHECK(tg::device("cuda:3").device() == tg::Device(tg::kCUDA, 3));
  CHECK_FALSE(tg::device(tg::kCPU).has_dtype());
  CHECK(tg::requires_grad().requires_grad());
  CHECK_FALSE(tg::requires_grad(false).requires_grad());
  CHECK(tg::layout(tg::kStrided).layout_opt().has_value());
  const tg::TensorOptions chained = tg::dtype(tg::kDouble).device("cuda:1");
  CHECK(chained.dtype() == tg::kDouble);
  CHECK(chained.device() == tg::Device("cuda:1"));
}

TEST_CASE("tensor_options: merge_in lets the other side's set fields win") {
  const tg::TensorOptions base = tg::dtype(tg::kLong).device("cuda:1");
  const tg::TensorOptions only_dtype = tg::dtype(tg::kHalf);
  const tg::TensorOptions merged = base.merge_in(only_dtype);
  CHECK(merged.dtype() == tg::kHalf);
  CHECK(merged.device() == tg::Device("cuda:1"));  // unset in `only_dtype`: kept

  const tg::TensorOptions reverse = only_dtype.merge_in(base);
  CHECK(reverse.dtype() == tg::kLong);
  CHECK(reverse.device() == tg::Device("cuda:1"));

  const tg::TensorOptions with_grad = base.merge_in(tg::requires_grad());
  CHECK(with_grad.requires_grad());
  CHECK(with_grad.dtype() == tg::kLong);

  const tg::TensorOptions unchanged = base.merge_in(tg::TensorOptions());
  CHECK(unchanged.dtype() == tg::kLong);
  CHECK(unchanged.device() == tg::Device("cuda:1"));
  CHECK_FALSE(unchanged.requires_grad());
}

TEST_CASE("tensor_options: operator<< and the enum printers") {
  std::ostringstream out;
  out << tg::dtype(tg::kLong).device("cuda:1").requires_grad(true);
  CHECK(out.str() == "TensorOptions(dtype=int64, device=cuda:1, layout=strided, requires_grad=true)");
  std::ostringstream formats;
  formats << tg::kContiguousFormat << " " << tg::kPreserveFormat << " " << tg::kStrided;
  CHECK(formats.str() == "contiguous_format preserve_format strided");
}

// ---------------------------------------------------------------------------------------------
// ArrayRef

namespace {
size_t count_of(tg::IntArrayRef values) { return values.size(); }
int64_t sum_of(tg::IntArrayRef values) {
  int64_t total = 0;
  for (int64_t v : values) total += v;
  return total;
}
}  // namespace

TEST_CASE("array_ref: views vectors, arrays, C arrays and initializer lists without copying") {
  const std::vector<int64_t> vec = {1, 2, 3, 4};
  const tg::IntArrayRef from_vec(vec);
  CHECK(from_vec.size() == 4);
  CHECK(from_vec.data() == vec.data());
  CHECK(from_vec.front() == 1);
  CHECK(from_vec.back() == 4);
  CHECK(from_vec[2] == 3);

  const std::array<int64_t, 3> arr = {5, 6, 7};
  const tg::IntArrayRef from_arr(arr);
  CHECK(from_arr.data() == arr.data());
  CHECK(from_arr.size() == 3);

  const int64_t c_array[] = {8, 9};
  const tg::IntArrayRef from_c(c_array);
  CHECK(from_c.size() == 2);
  CHECK(from_c.data() == c_array);

  const int64_t one = 42;
  const tg::IntArrayRef from_one(one);
  CHECK(from_one.size() == 1);
  CHECK(from_one[0] == 42);

  CHECK(count_of({1, 2, 3}) == 3);
  CHECK(sum_of({10, 20, 30}) == 60);
  CHECK(count_of({}) == 0);

  const tg::IntArrayRef empty;
  CHECK(empty.empty());
  CHECK(empty.size() == 0);
  CHECK(empty.begin() == empty.end());
  CHECK(empty.vec().empty());

  CHECK(from_vec.vec() == vec);
}

TEST_CASE("array_ref: slice views a sub-range and checks its bounds") {
  const std::vector<int64_t> vec = {1, 2, 3, 4, 5};
  const tg::IntArrayRef ref(vec);
  CHECK(ref.slice(1, 3) == tg::IntArrayRef(std::vector<int64_t>{2, 3, 4}));
  CHECK(ref.slice(1, 3).data() == vec.data() + 1);
  CHECK(ref.slice(3).vec() == std::vector<int64_t>{4, 5});
  CHECK(ref.slice(5).empty());
  CHECK(ref.slice(0, 0).empty());
  CHECK(ref.slice(0, 5) == ref);
  CHECK_THROWS_AS(ref.slice(6), tg::IndexError);
  CHECK_THROWS_AS(ref.slice(3, 3), tg::IndexError);
  CHECK_THROWS_AS(ref.slice(6, 0), tg::IndexError);
}

TEST_CASE("array_ref: equality compares elements, not addresses") {
  const std::vector<int64_t> a = {1, 2, 3};
  const std::vector<int64_t> b = {1, 2, 3};
  const std::vector<int64_t> c = {1, 2, 4};
  const std::vector<int64_t> d = {1, 2};
  CHECK(tg::IntArrayRef(a) == tg::IntArrayRef(b));
  CHECK_FALSE(tg::IntArrayRef(a) == tg::IntArrayRef(c));
  CHECK_FALSE(tg::IntArrayRef(a) == tg::IntArrayRef(d));
  CHECK(tg::IntArrayRef(a).equals(b));
  CHECK(tg::IntArrayRef() == tg::IntArrayRef(std::vector<int64_t>{}));
}

TEST_CASE("array_ref: at() checks the index and raises IndexError") {
  const std::vector<int64_t> vec = {1, 2, 3};
  const tg::IntArrayRef ref(vec);
  CHECK(ref.at(0) == 1);
  CHECK(ref.at(2) == 3);
  CHECK_THROWS_AS(ref.at(3), tg::IndexError);
  CHECK_THROWS_AS(tg::IntArrayRef().at(0), tg::IndexError);
  const std::string message = message_of<tg::IndexError>([&] { (void)ref.at(7); });
  CHECK(message == "[ArrayRef] index 7 out of range for size 3");
}

TEST_CASE("array_ref: operator<< prints a bracketed list") {
  const std::vector<int64_t> vec = {2, 3};
  std::ostringstream out;
  out << tg::IntArrayRef(vec) << tg::IntArrayRef();
  CHECK(out.str() == "[2, 3][]");
}

// ---------------------------------------------------------------------------------------------
// maybe_wrap_dim

TEST_CASE("wrap_dim: negative dims count from the end") {
  CHECK(tg::maybe_wrap_dim(0, 3) == 0);
  CHECK(tg::maybe_wrap_dim(2, 3) == 2);
  CHECK(tg::maybe_wrap_dim(-1, 3) == 2);
  CHECK(tg::maybe_wrap_dim(-3, 3) == 0);
  CHECK(tg::maybe_wrap_dim(-1, 1) == 0);
}

TEST_CASE("wrap_dim: a scalar (0-dim) accepts 0 and -1 only") {
  CHECK(tg::maybe_wrap_dim(0, 0) == 0);
  CHECK(tg::maybe_wrap_dim(-1, 0) == 0);
  CHECK_THROWS_AS(tg::maybe_wrap_dim(1, 0), tg::IndexError);
  CHECK_THROWS_AS(tg::maybe_wrap_dim(-2, 0), tg::IndexError);
}

TEST_CASE("wrap_dim: out of range is an IndexError naming the op and the range") {
  CHECK_THROWS_AS(tg::maybe_wrap_dim(3, 3), tg::IndexError);
  CHECK_THROWS_AS(tg::maybe_wrap_dim(-4, 3), tg::IndexError);
  CHECK(message_of<tg::IndexError>([] { tg::maybe_wrap_dim(5, 2, "sum"); }) ==
        "[sum] dimension out of range (expected to be in range of [-2, 1], but got 5)");
  CHECK(message_of<tg::IndexError>([] { tg::maybe_wrap_dim(-3, 2); }) ==
        "[tensor] dimension out of range (expected to be in range of [-2, 1], but got -3)");
  CHECK(contains(message_of<tg::IndexError>([] { tg::maybe_wrap_dim(2, 0, "squeeze"); }), "[-1, 0]"));
}

// ---------------------------------------------------------------------------------------------
// IntrusivePtr

TEST_CASE("intrusive_ptr: make, copy and destruction exactly once") {
  int live = 0;
  {
    tg::IntrusivePtr<Counted> a = tg::make_intrusive<Counted>(7, &live);
    CHECK(live == 1);
    CHECK(a.use_count() == 1);
    CHECK(a->value == 7);
    CHECK((*a).value == 7);
    CHECK(static_cast<bool>(a));
    {
      tg::IntrusivePtr<Counted> b = a;
      CHECK(a.use_count() == 2);
      CHECK(b.get() == a.get());
      CHECK(b == a);
      tg::IntrusivePtr<Counted> c;
      c = b;
      CHECK(a.use_count() == 3);
      c = c;  // self-assignment keeps the count
      CHECK(a.use_count() == 3);
    }
    CHECK(a.use_count() == 1);
    CHECK(live == 1);
  }
  CHECK(live == 0);
}

TEST_CASE("intrusive_ptr: move transfers ownership without touching the count") {
  int live = 0;
  tg::IntrusivePtr<Counted> a = tg::make_intrusive<Counted>(1, &live);
  Counted* raw = a.get();
  tg::IntrusivePtr<Counted> b = std::move(a);
  CHECK(b.get() == raw);
  CHECK(b.use_count() == 1);
  CHECK_FALSE(a);  // NOLINT(bugprone-use-after-move): moved-from is null by contract
  CHECK(a.use_count() == 0);

  tg::IntrusivePtr<Counted> c = tg::make_intrusive<Counted>(2, &live);
  CHECK(live == 2);
  c = std::move(b);  // c's old object dies, c takes b's
  CHECK(live == 1);
  CHECK(c.get() == raw);
  CHECK(c.use_count() == 1);
  CHECK_FALSE(b);  // NOLINT(bugprone-use-after-move)

  tg::IntrusivePtr<DerivedCounted> derived = tg::make_intrusive<DerivedCounted>(3, &live);
  tg::IntrusivePtr<Counted> upcast = std::move(derived);
  CHECK(upcast->value == 3);
  CHECK(upcast.use_count() == 1);
  CHECK_FALSE(derived);  // NOLINT(bugprone-use-after-move)
  CHECK(live == 2);
  upcast.reset();
  c.reset();
  CHECK(live == 0);
  CHECK_FALSE(c);
}

TEST_CASE("intrusive_ptr: release_ownership and reclaim hand one reference across") {
  int live = 0;
  tg::IntrusivePtr<Counted> a = tg::make_intrusive<Counted>(5, &live);
  Counted* raw = a.release_ownership();
  CHECK_FALSE(a);
  CHECK(raw->use_count() == 1);  // still owned, by the raw pointer now
  CHECK(live == 1);
  {
    tg::IntrusivePtr<Counted> back = tg::IntrusivePtr<Counted>::reclaim(raw);
    CHECK(back.use_count() == 1);
    CHECK(back->value == 5);
  }
  CHECK(live == 0);
}

TEST_CASE("intrusive_ptr: a raw-pointer constructor takes a new reference") {
  int live = 0;
  tg::IntrusivePtr<Counted> a = tg::make_intrusive<Counted>(9, &live);
  {
    tg::IntrusivePtr<Counted> b(a.get());
    CHECK(a.use_count() == 2);
  }
  CHECK(a.use_count() == 1);
  a->retain();
  CHECK(a.use_count() == 2);
  a->release();
  CHECK(a.use_count() == 1);
  CHECK(live == 1);
  tg::IntrusivePtr<Counted> null(nullptr);
  CHECK_FALSE(null);
  CHECK(null.use_count() == 0);
  CHECK_FALSE(null == a);
  a.swap(null);
  CHECK_FALSE(a);
  CHECK(null->value == 9);
}

// ---------------------------------------------------------------------------------------------
// suggest.h

TEST_CASE("suggest: edit_distance is the Levenshtein distance") {
  CHECK(tg::edit_distance("", "") == 0);
  CHECK(tg::edit_distance("abc", "abc") == 0);
  CHECK(tg::edit_distance("", "abc") == 3);
  CHECK(tg::edit_distance("abc", "") == 3);
  CHECK(tg::edit_distance("kitten", "sitting") == 3);
  CHECK(tg::edit_distance("flaw", "lawn") == 2);
  CHECK(tg::edit_distance("float32", "flaot32") == 2);  // a transposition is two edits
  CHECK(tg::edit_distance("add", "addd") == 1);
  CHECK(tg::edit_distance("sitting", "kitten") == tg::edit_distance("kitten", "sitting"));
}

TEST_CASE("suggest: closest_match picks the nearest candidate within the limit") {
  const std::vector<std::string_view> names = {"add", "sub", "mul", "matmul", "addmm"};
  CHECK(tg::closest_match("ad", names, 2) == std::optional<std::string>("add"));
  CHECK(tg::closest_match("matmull", names, 2) == std::optional<std::string>("matmul"));
  CHECK(tg::closest_match("addm", names, 2) == std::optional<std::string>("add"));  // tie: the first wins
  CHECK(tg::closest_match("mul", names, 0) == std::optional<std::string>("mul"));
  CHECK_FALSE(tg::closest_match("convolution", names, 3).has_value());
  CHECK_FALSE(tg::closest_match("ad", {}, 5).has_value());
  CHECK_FALSE(tg::closest_match("xyz", names, 2).has_value());
}
