// Tests for IValue: every kind round-trips through its accessor, copies and moves keep the
// reference counts of tensors and heap payloads right, a wrong accessor raises a TypeError
// naming both types, and operator<< prints each kind the way the schema language writes it.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/ivalue.h"
#include "core/tensor.h"

namespace {

using tg::IValue;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

tg::Tensor empty(tg::IntArrayRef sizes, tg::ScalarType dtype = tg::kFloat) {
  return tg::make_empty_tensor(sizes, dtype, tg::Device(tg::kCPU));
}

std::string printed(const IValue& v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// The TypeError message an accessor raises, or "" if it did not raise one.
template <typename F>
std::string type_error_of(F&& f) {
  try {
    f();
  } catch (const tg::TypeError& e) {
    return e.message();
  }
  return std::string();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Round trips

TEST_CASE("ivalue: None") {
  const IValue none;
  CHECK(none.isNone());
  CHECK(none.tag() == IValue::Tag::None);
  CHECK_FALSE(none.isTensor());
  CHECK_FALSE(none.isScalar());
  CHECK(IValue(std::nullopt).isNone());
}

TEST_CASE("ivalue: Tensor") {
  tg::Tensor t = empty({2, 3});
  const IValue v(t);
  CHECK(v.isTensor());
  CHECK(v.tag() == IValue::Tag::Tensor);
  CHECK(v.toTensor().is_same(t));
  CHECK(v.toTensor().sizes() == t.sizes());
}

TEST_CASE("ivalue: double, int and bool") {
  const IValue d(2.5);
  CHECK(d.isDouble());
  CHECK(d.isScalar());
  CHECK(d.toDouble() == 2.5);

  const IValue i(int64_t{-7});
  CHECK(i.isInt());
  CHECK(i.isScalar());
  CHECK(i.toInt() == -7);
  const IValue big(int64_t{1} << 62);
  CHECK(big.toInt() == (int64_t{1} << 62));
  const IValue from_int(3);
  CHECK(from_int.isInt());
  CHECK(from_int.toInt() == 3);

  const IValue b(true);
  CHECK(b.isBool());
  CHECK(b.isScalar());
  CHECK(b.toBool() == true);
  CHECK(IValue(false).toBool() == false);
  CHECK_FALSE(IValue(false).isInt());  // bool is its own kind, not an int
}

TEST_CASE("ivalue: string from std::string, string_view and C strings") {
  const IValue s(std::string("hello"));
  CHECK(s.isString());
  CHECK(s.toStringView() == "hello");
  CHECK(IValue(std::string_view("view")).toStringView() == "view");
  const IValue c("cstr");
  CHECK(c.isString());  // a string literal is a string, not a bool or a Device
  CHECK(c.toStringView() == "cstr");
  CHECK(IValue(std::string()).toStringView().empty());
}

TEST_CASE("ivalue: Device") {
  for (const char* text : {"cpu", "cpu:0", "cuda", "cuda:0", "cuda:1", "cuda:127"}) {
    CAPTURE(text);
    const tg::Device device(text);
    const IValue v(device);
    CHECK(v.isDevice());
    CHECK_FALSE(v.isInt());
    CHECK(v.toDevice() == device);
    CHECK(v.toDevice().index() == device.index());
  }
}

TEST_CASE("ivalue: a Scalar travels as Double, Int or Bool") {
  const IValue d(tg::Scalar(1.25));
  CHECK(d.isDouble());
  CHECK(d.toDouble() == 1.25);
  CHECK(d.toScalar().type() == tg::kDouble);
  CHECK(d.toScalar().toDouble() == 1.25);

  const IValue i(tg::Scalar(int64_t{42}));
  CHECK(i.isInt());
  CHECK(i.toInt() == 42);
  CHECK(i.toScalar().type() == tg::kLong);
  CHECK(i.toScalar().toLong() == 42);

  const IValue b(tg::Scalar(true));
  CHECK(b.isBool());
  CHECK(b.toBool());
  CHECK(b.toScalar().type() == tg::kBool);
  CHECK(b.toScalar().toBool());

  // A plain int, double or bool reads back as a Scalar too.
  CHECK(IValue(5).toScalar().equal(tg::Scalar(5)));
  CHECK(IValue(0.5).toScalar().type() == tg::kDouble);
  CHECK(IValue(false).toScalar().type() == tg::kBool);
}

TEST_CASE("ivalue: ScalarType, Layout and MemoryFormat travel as Int") {
  for (tg::ScalarType t : {tg::kByte, tg::kChar, tg::kShort, tg::kInt, tg::kLong, tg::kHalf, tg::kFloat, tg::kDouble,
                           tg::kBool, tg::kBFloat16}) {
    CAPTURE(t);
    const IValue v(t);
    CHECK(v.isInt());
    CHECK(v.toInt() == static_cast<int64_t>(t));
    CHECK(v.toScalarType() == t);
  }
  const IValue layout(tg::kStrided);
  CHECK(layout.isInt());
  CHECK(layout.toLayout() == tg::kStrided);

  const IValue preserve(tg::kPreserveFormat);
  CHECK(preserve.isInt());
  CHECK(preserve.toInt() == 1);
  CHECK(preserve.toMemoryFormat() == tg::kPreserveFormat);
  CHECK(IValue(tg::kContiguousFormat).toMemoryFormat() == tg::kContiguousFormat);

  // An int that is not a ScalarType is rejected, not cast.
  CHECK_THROWS_AS(IValue(int64_t{tg::kNumScalarTypes}).toScalarType(), tg::ValueError);
  CHECK_THROWS_AS(IValue(int64_t{-1}).toScalarType(), tg::ValueError);
  CHECK_THROWS_AS(IValue(2.0).toScalarType(), tg::TypeError);
}

TEST_CASE("ivalue: int, float and bool lists") {
  const std::vector<int64_t> ints = {3, -1, 4};
  const IValue int_list(ints);
  CHECK(int_list.isIntList());
  CHECK(int_list.toIntList().vec() == ints);
  const IValue from_ref{tg::IntArrayRef(ints)};
  CHECK(from_ref.toIntList().vec() == ints);
  CHECK(from_ref.toIntList().data() != ints.data());  // the IValue owns a copy
  CHECK(IValue(std::vector<int64_t>{}).toIntList().empty());

  const std::vector<double> doubles = {0.5, -2.0};
  const IValue double_list(doubles);
  CHECK(double_list.isDoubleList());
  CHECK(double_list.toDoubleList().vec() == doubles);
  CHECK(IValue(tg::ArrayRef<double>(doubles)).toDoubleList().vec() == doubles);

  const std::vector<bool> bools = {true, false, true};
  const IValue bool_list(bools);
  CHECK(bool_list.isBoolList());
  CHECK(bool_list.toBoolList() == bools);
}

TEST_CASE("ivalue: tensor lists") {
  tg::Tensor a = empty({1});
  tg::Tensor b = empty({2, 2});
  const IValue list(std::vector<tg::Tensor>{a, b});
  CHECK(list.isTensorList());
  REQUIRE(list.toTensorList().size() == 2);
  CHECK(list.toTensorList()[0].is_same(a));
  CHECK(list.toTensorList()[1].is_same(b));

  const std::vector<tg::Tensor> tensors = {b, a, b};
  const IValue from_ref{tg::TensorList(tensors)};
  REQUIRE(from_ref.toTensorList().size() == 3);
  CHECK(from_ref.toTensorList()[2].is_same(b));
}

TEST_CASE("ivalue: generic lists hold any IValues, nested") {
  tg::Tensor t = empty({3});
  const IValue list(std::vector<IValue>{IValue(1), IValue("two"), IValue(t), IValue(), IValue(std::vector<IValue>{IValue(2.5)})});
  CHECK(list.isList());
  const tg::ArrayRef<IValue> items = list.toList();
  REQUIRE(items.size() == 5);
  CHECK(items[0].toInt() == 1);
  CHECK(items[1].toStringView() == "two");
  CHECK(items[2].toTensor().is_same(t));
  CHECK(items[3].isNone());
  REQUIRE(items[4].isList());
  CHECK(items[4].toList()[0].toDouble() == 2.5);
}

TEST_CASE("ivalue: optional<T> gives the value or None") {
  CHECK(IValue(std::optional<int64_t>(5)).toInt() == 5);
  CHECK(IValue(std::optional<int64_t>()).isNone());
  CHECK(IValue(std::optional<double>(1.5)).toDouble() == 1.5);
  CHECK(IValue(std::optional<tg::ScalarType>(tg::kHalf)).toScalarType() == tg::kHalf);
  CHECK(IValue(std::optional<tg::ScalarType>()).isNone());
  CHECK(IValue(std::optional<tg::Device>(tg::Device("cuda:1"))).toDevice() == tg::Device("cuda:1"));
  CHECK(IValue(std::optional<std::string>("s")).toStringView() == "s");
  CHECK(IValue(std::optional<std::vector<int64_t>>(std::vector<int64_t>{1, 2})).toIntList().size() == 2);

  tg::Tensor t = empty({1});
  const IValue some{std::optional<tg::Tensor>(t)};
  CHECK(some.toTensor().is_same(t));
  CHECK(t.use_count() == 2);
  CHECK(IValue(std::optional<tg::Tensor>()).isNone());
}

// ---------------------------------------------------------------------------------------------
// Reference counts under copy and move

TEST_CASE("ivalue: a Tensor in an IValue holds one reference") {
  tg::Tensor t = empty({4});
  CHECK(t.use_count() == 1);
  {
    IValue v(t);
    CHECK(t.use_count() == 2);
    {
      IValue copy(v);
      CHECK(t.use_count() == 3);
      IValue assigned;
      assigned = v;
      CHECK(t.use_count() == 4);
    }
    CHECK(t.use_count() == 2);
  }
  CHECK(t.use_count() == 1);
}

TEST_CASE("ivalue: moving an IValue moves the reference and leaves None") {
  tg::Tensor t = empty({4});
  IValue v(t);
  CHECK(t.use_count() == 2);

  IValue moved(std::move(v));
  CHECK(t.use_count() == 2);
  CHECK(v.isNone());  // NOLINT(bugprone-use-after-move): moved-from is None by contract
  CHECK(moved.toTensor().is_same(t));

  IValue target(1.5);
  target = std::move(moved);
  CHECK(t.use_count() == 2);
  CHECK(moved.isNone());  // NOLINT(bugprone-use-after-move)
  CHECK(target.isTensor());

  // Assigning something else over it drops the reference.
  target = IValue(3);
  CHECK(t.use_count() == 1);
  CHECK(target.toInt() == 3);

  // Moving a tensor out of an rvalue IValue hands over its reference.
  IValue holder(t);
  CHECK(t.use_count() == 2);
  tg::Tensor out = std::move(holder).toTensor();
  CHECK(out.is_same(t));
  CHECK(t.use_count() == 2);  // t and out; holder no longer holds it
}

TEST_CASE("ivalue: moving the Tensor into the IValue does not add a reference") {
  tg::Tensor t = empty({4});
  tg::Tensor extra = t;
  CHECK(t.use_count() == 2);
  IValue v(std::move(extra));
  CHECK(t.use_count() == 2);
  CHECK_FALSE(extra.defined());  // NOLINT(bugprone-use-after-move)
}

TEST_CASE("ivalue: copies of lists share the payload and free it once") {
  tg::Tensor t = empty({2});
  {
    IValue list(std::vector<tg::Tensor>{t, t});
    CHECK(t.use_count() == 3);
    IValue copy = list;
    CHECK(t.use_count() == 3);  // the list is shared, not copied
    CHECK(copy.toTensorList().data() == list.toTensorList().data());
    IValue moved = std::move(list);
    CHECK(t.use_count() == 3);
    CHECK(list.isNone());  // NOLINT(bugprone-use-after-move)
    copy = IValue();
    CHECK(t.use_count() == 3);  // `moved` still holds the list
  }
  CHECK(t.use_count() == 1);

  {
    IValue generic(std::vector<IValue>{IValue(t), IValue(std::vector<tg::Tensor>{t})});
    CHECK(t.use_count() == 3);
    IValue copy(generic);
    CHECK(t.use_count() == 3);
  }
  CHECK(t.use_count() == 1);
}

TEST_CASE("ivalue: strings and lists survive their source and copies") {
  IValue copy;
  {
    IValue s(std::string("persist"));
    copy = s;
  }
  CHECK(copy.toStringView() == "persist");

  IValue list_copy;
  {
    IValue list(std::vector<int64_t>{1, 2, 3});
    list_copy = list;
  }
  CHECK(list_copy.toIntList().vec() == std::vector<int64_t>{1, 2, 3});
}

TEST_CASE("ivalue: self-assignment keeps the value") {
  tg::Tensor t = empty({1});
  IValue v(t);
  IValue& alias = v;
  v = alias;
  CHECK(v.toTensor().is_same(t));
  CHECK(t.use_count() == 2);
  v = std::move(alias);
  CHECK(v.toTensor().is_same(t));
  CHECK(t.use_count() == 2);
}

TEST_CASE("ivalue: assigning an element of a list over the list itself") {
  // The element lives inside the payload that the assignment releases.
  IValue v(std::vector<IValue>{IValue(std::string("inner")), IValue(2)});
  v = v.toList()[0];
  REQUIRE(v.isString());
  CHECK(v.toStringView() == "inner");

  tg::Tensor t = empty({1});
  IValue w(std::vector<IValue>{IValue(t)});
  CHECK(t.use_count() == 2);
  w = w.toList()[0];
  REQUIRE(w.isTensor());
  CHECK(w.toTensor().is_same(t));
  CHECK(t.use_count() == 2);
}

TEST_CASE("ivalue: a Stack is a vector of IValues") {
  tg::Tensor t = empty({1});
  tg::Stack stack;
  stack.emplace_back(t);
  stack.emplace_back(2.0);
  stack.emplace_back(tg::Scalar(3));
  for (int i = 0; i < 100; ++i) stack.emplace_back(t);  // reallocation moves, never leaks
  CHECK(t.use_count() == 102);
  CHECK(stack[1].toDouble() == 2.0);
  CHECK(stack[2].toInt() == 3);
  stack.clear();
  CHECK(t.use_count() == 1);
}

// ---------------------------------------------------------------------------------------------
// Wrong accessors and names

TEST_CASE("ivalue: a wrong accessor is a TypeError naming expected and actual type") {
  CHECK(type_error_of([] { (void)IValue(3).toTensor(); }) == "[IValue] expected a boxed value of type Tensor, got int");
  CHECK(type_error_of([] { (void)IValue(true).toInt(); }) == "[IValue] expected a boxed value of type int, got bool");
  CHECK(type_error_of([] { (void)IValue(1.0).toBool(); }) == "[IValue] expected a boxed value of type bool, got float");
  CHECK(type_error_of([] { (void)IValue(3).toDouble(); }) == "[IValue] expected a boxed value of type float, got int");
  CHECK(type_error_of([] { (void)IValue().toStringView(); }) == "[IValue] expected a boxed value of type str, got None");
  CHECK(contains(type_error_of([] { (void)IValue("s").toDevice(); }), "Device, got str"));
  CHECK(contains(type_error_of([] { (void)IValue("s").toScalar(); }), "Scalar, got str"));
  CHECK(contains(type_error_of([] { (void)IValue(std::vector<double>{1.0}).toIntList(); }), "int[], got float[]"));
  CHECK(contains(type_error_of([] { (void)IValue(std::vector<int64_t>{1}).toDoubleList(); }), "float[], got int[]"));
  CHECK(contains(type_error_of([] { (void)IValue(std::vector<int64_t>{1}).toBoolList(); }), "bool[], got int[]"));
  CHECK(contains(type_error_of([] { (void)IValue(std::vector<IValue>{}).toTensorList(); }), "Tensor[], got list"));
  CHECK(contains(type_error_of([] { (void)IValue(std::vector<tg::Tensor>{}).toList(); }), "list, got Tensor[]"));
  CHECK(contains(type_error_of([] { (void)IValue(tg::Device("cpu")).toInt(); }), "int, got Device"));
  CHECK(contains(type_error_of([] { (void)IValue(empty({1})).toInt(); }), "int, got Tensor"));
  CHECK(contains(type_error_of([] { (void)IValue(1.5).toLayout(); }), "int, got float"));
  CHECK(contains(type_error_of([] { (void)std::move(IValue(1)).toTensor(); }), "Tensor, got int"));
  // The error is also a tg::Error.
  CHECK_THROWS_AS(IValue(3).toTensor(), tg::Error);
}

TEST_CASE("ivalue: type_name uses the schema language's names") {
  CHECK(IValue().type_name() == "None");
  CHECK(IValue(empty({1})).type_name() == "Tensor");
  CHECK(IValue(1.0).type_name() == "float");
  CHECK(IValue(1).type_name() == "int");
  CHECK(IValue(true).type_name() == "bool");
  CHECK(IValue("s").type_name() == "str");
  CHECK(IValue(tg::Device("cpu")).type_name() == "Device");
  CHECK(IValue(std::vector<int64_t>{}).type_name() == "int[]");
  CHECK(IValue(std::vector<double>{}).type_name() == "float[]");
  CHECK(IValue(std::vector<bool>{}).type_name() == "bool[]");
  CHECK(IValue(std::vector<tg::Tensor>{}).type_name() == "Tensor[]");
  CHECK(IValue(std::vector<IValue>{}).type_name() == "list");
  CHECK(IValue(tg::kFloat).type_name() == "int");
}

TEST_CASE("ivalue: operator<< prints each kind") {
  CHECK(printed(IValue()) == "None");
  CHECK(printed(IValue(2.5)) == "2.5");
  CHECK(printed(IValue(-3)) == "-3");
  CHECK(printed(IValue(true)) == "True");
  CHECK(printed(IValue(false)) == "False");
  CHECK(printed(IValue("hi")) == "\"hi\"");
  CHECK(printed(IValue(tg::Device("cuda:1"))) == "cuda:1");
  CHECK(printed(IValue(std::vector<int64_t>{1, 2})) == "[1, 2]");
  CHECK(printed(IValue(std::vector<double>{0.5})) == "[0.5]");
  CHECK(printed(IValue(std::vector<bool>{true, false})) == "[True, False]");
  CHECK(printed(IValue(empty({2}))) == "Tensor(dtype=float32, device=cpu, sizes=[2])");
  CHECK(printed(IValue(std::vector<tg::Tensor>{empty({1}, tg::kLong)})) ==
        "[Tensor(dtype=int64, device=cpu, sizes=[1])]");
  CHECK(printed(IValue(std::vector<IValue>{IValue(1), IValue("a"), IValue()})) == "[1, \"a\", None]");
  CHECK(printed(IValue(std::vector<IValue>{})) == "[]");
}
