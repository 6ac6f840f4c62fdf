// Tests for boxing: a boxed call by name reaches an unboxed kernel for every argument and
// return type the dispatcher supports; a typed call reaches a boxed-only kernel; omitted
// trailing arguments take the schema's defaults; a wrong or missing argument is an error that
// names it; and afterwards the stack holds exactly the outputs.
#include <doctest/doctest.h>

#include <array>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "test_helpers.h"

#include "dispatch/schema_values.h"

namespace {

using test_helpers::contains;
using test_helpers::dispatcher;
using test_helpers::filled;
using test_helpers::thrown;
using test_helpers::value;

using tg::Device;
using tg::DispatchKey;
using tg::DispatchKeySet;
using tg::IntArrayRef;
using tg::IValue;
using tg::KernelFunction;
using tg::Layout;
using tg::Library;
using tg::MemoryFormat;
using tg::OperatorHandle;
using tg::Scalar;
using tg::ScalarType;
using tg::Stack;
using tg::Tensor;
using tg::TensorList;





std::vector<int64_t> ints(IntArrayRef list) { return list.vec(); }

// ---- One operator taking every supported argument type ----

constexpr std::string_view kEveryTypeSchema =
    "every(Tensor t, Tensor? ot, Tensor[] tl, Tensor?[] otl, int i, int? oi, int[] il, int[2] fixed, int[]? oil, "
    "float f, float? of, float[] fl, bool b, bool? ob, bool[3] mask, str s, str? os, Scalar sc, Scalar? osc, "
    "ScalarType st, ScalarType? ost, Device dev, Device? odev, Layout layout, MemoryFormat mf) -> Tensor";

// What the kernel received, copied out of the (possibly borrowed) arguments.
struct EveryArgs {
  Tensor t;
  std::optional<Tensor> ot;
  std::vector<Tensor> tl;
  std::vector<std::optional<Tensor>> otl;
  int64_t i = 0;
  std::optional<int64_t> oi;
  std::vector<int64_t> il, fixed;
  std::optional<std::vector<int64_t>> oil;
  double f = 0;
  std::optional<double> of;
  std::vector<double> fl;
  bool b = false;
  std::optional<bool> ob;
  std::array<bool, 3> mask{};
  std::string s;
  std::optional<std::string> os;
  Scalar sc;
  std::optional<Scalar> osc;
  ScalarType st = ScalarType::Undefined;
  std::optional<ScalarType> ost;
  Device dev = Device(tg::kCPU);
  std::optional<Device> odev;
  Layout layout = Layout::Strided;
  MemoryFormat mf = MemoryFormat::Contiguous;
  int calls = 0;
};
EveryArgs g_every;

Tensor every_kernel(const Tensor& t, const std::optional<Tensor>& ot, TensorList tl,
                    const std::vector<std::optional<Tensor>>& otl, int64_t i, std::optional<int64_t> oi, IntArrayRef il,
                    IntArrayRef fixed, tg::OptionalIntArrayRef oil, double f, std::optional<double> of,
                    tg::ArrayRef<double> fl, bool b, std::optional<bool> ob, std::array<bool, 3> mask,
                    std::string_view s, std::optional<std::string_view> os, const Scalar& sc,
                    const std::optional<Scalar>& osc, ScalarType st, std::optional<ScalarType> ost, Device dev,
                    std::optional<Device> odev, Layout layout, MemoryFormat mf) {
  EveryArgs& seen = g_every;
  seen.t = t;
  seen.ot = ot;
  seen.tl = tl.vec();
  seen.otl = otl;
  seen.i = i;
  seen.oi = oi;
  seen.il = il.vec();
  seen.fixed = fixed.vec();
  seen.oil = oil ? std::optional<std::vector<int64_t>>(oil->vec()) : std::nullopt;
  seen.f = f;
  seen.of = of;
  seen.fl = fl.vec();
  seen.b = b;
  seen.ob = ob;
  seen.mask = mask;
  seen.s = std::string(s);
  seen.os = os ? std::optional<std::string>(std::string(*os)) : std::nullopt;
  seen.sc = sc;
  seen.osc = osc;
  seen.st = st;
  seen.ost = ost;
  seen.dev = dev;
  seen.odev = odev;
  seen.layout = layout;
  seen.mf = mf;
  ++seen.calls;
  return filled(value(t) + 1);
}

using EverySignature = Tensor(const Tensor&, const std::optional<Tensor>&, TensorList,
                              const std::vector<std::optional<Tensor>>&, int64_t, std::optional<int64_t>, IntArrayRef,
                              IntArrayRef, tg::OptionalIntArrayRef, double, std::optional<double>,
                              tg::ArrayRef<double>, bool, std::optional<bool>, std::array<bool, 3>, std::string_view,
                              std::optional<std::string_view>, const Scalar&, const std::optional<Scalar>&, ScalarType,
                              std::optional<ScalarType>, Device, std::optional<Device>, Layout, MemoryFormat);

// The tensors the "given" calls pass; kept alive so identity can be checked.
struct EveryTensors {
  Tensor t = filled(10), ot = filled(11), tl0 = filled(12), tl1 = filled(13), otl0 = filled(14);
};

// The arguments of `every` with every optional given (given == true) or None.
Stack every_stack(const EveryTensors& ts, bool given) {
  auto maybe = [&](IValue v) { return given ? v : IValue(); };
  return Stack{
      ts.t,
      maybe(ts.ot),
      std::vector<Tensor>{ts.tl0, ts.tl1},
      std::vector<IValue>{IValue(ts.otl0), IValue()},
      int64_t{7},
      maybe(int64_t{-8}),
      std::vector<int64_t>{1, 2, 3},
      std::vector<int64_t>{4, 5},
      maybe(std::vector<int64_t>{6}),
      2.5,
      maybe(-3.25),
      std::vector<double>{0.5, 1.5},
      true,
      maybe(false),
      std::vector<bool>{true, false, true},
      "hello",
      maybe("world"),
      Scalar(int64_t{3}),
      maybe(Scalar(1.25)),
      tg::kDouble,
      maybe(tg::kHalf),
      Device(tg::kCUDA, 1),
      maybe(Device("cpu")),
      Layout::Strided,
      MemoryFormat::Preserve,
  };
}

// Checks what the kernel saw against every_stack(ts, given).
void check_every(const EveryArgs& seen, const EveryTensors& ts, bool given) {
  CHECK(seen.t.is_same(ts.t));
  CHECK(seen.tl.size() == 2);
  if (seen.tl.size() == 2) {
    CHECK(seen.tl[0].is_same(ts.tl0));
    CHECK(seen.tl[1].is_same(ts.tl1));
  }
  REQUIRE(seen.otl.size() == 2);
  REQUIRE(seen.otl[0].has_value());
  CHECK(seen.otl[0]->is_same(ts.otl0));
  CHECK_FALSE(seen.otl[1].has_value());
  CHECK(seen.i == 7);
  CHECK(seen.il == std::vector<int64_t>{1, 2, 3});
  CHECK(seen.fixed == std::vector<int64_t>{4, 5});
  CHECK(seen.f == 2.5);
  CHECK(seen.fl == std::vector<double>{0.5, 1.5});
  CHECK(seen.b);
  CHECK(seen.mask == std::array<bool, 3>{true, false, true});
  CHECK(seen.s == "hello");
  CHECK(seen.sc.is_integral(false));
  CHECK(seen.sc.toLong() == 3);
  CHECK(seen.st == tg::kDouble);
  CHECK(seen.dev == Device(tg::kCUDA, 1));
  CHECK(seen.layout == Layout::Strided);
  CHECK(seen.mf == MemoryFormat::Preserve);

  CHECK(seen.ot.has_value() == given);
  CHECK(seen.oi.has_value() == given);
  CHECK(seen.oil.has_value() == given);
  CHECK(seen.of.has_value() == given);
  CHECK(seen.ob.has_value() == given);
  CHECK(seen.os.has_value() == given);
  CHECK(seen.osc.has_value() == given);
  CHECK(seen.ost.has_value() == given);
  CHECK(seen.odev.has_value() == given);
  if (given && seen.ot && seen.oi && seen.oil && seen.of && seen.ob && seen.os && seen.osc && seen.ost && seen.odev) {
    CHECK(seen.ot->is_same(ts.ot));
    CHECK(*seen.oi == -8);
    CHECK(*seen.oil == std::vector<int64_t>{6});
    CHECK(*seen.of == -3.25);
    CHECK(*seen.ob == false);
    CHECK(*seen.os == "world");
    CHECK(seen.osc->is_floating_point());
    CHECK(seen.osc->toDouble() == 1.25);
    CHECK(*seen.ost == tg::kHalf);
    CHECK(*seen.odev == Device(tg::kCPU));
  }
}

}  // namespace

TEST_CASE("boxing: callBoxed by name converts every argument type for an unboxed kernel") {
  Library lib(Library::Kind::Fragment, "test_box_args");
  lib.def(kEveryTypeSchema);
  lib.impl("every", DispatchKey::CPU, &every_kernel);
  OperatorHandle op = dispatcher().findSchemaOrThrow("test_box_args::every");
  const EveryTensors ts;

  for (bool given : {true, false}) {
    CAPTURE(given);
    g_every = EveryArgs{};
    Stack stack = every_stack(ts, given);
    op.callBoxed(stack);
    CHECK(g_every.calls == 1);
    check_every(g_every, ts, given);
    // The 25 arguments were replaced by the one output.
    REQUIRE(stack.size() == 1);
    REQUIRE(stack[0].isTensor());
    CHECK(value(stack[0].toTensor()) == 11.0f);
  }
  g_every = EveryArgs{};
}

namespace {
// A boxed kernel that passes its arguments on below its key, unchanged.
void pass_below(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  op.redispatchBoxed(ks.below_highest(), stack);
}
}  // namespace

TEST_CASE("boxing: a typed call through a boxed kernel and back to an unboxed one keeps every argument") {
  // typed call -> boxed PrivateUse2 kernel (typed -> IValues) -> unboxed CPU kernel (IValues -> typed).
  Library lib(Library::Kind::Fragment, "test_box_round_trip");
  lib.def(kEveryTypeSchema);
  lib.impl("every", DispatchKey::CPU, &every_kernel);
  lib.impl("every", DispatchKey::PrivateUse2, KernelFunction::makeFromBoxedFunction(&pass_below));
  auto every = dispatcher().findSchemaOrThrow("test_box_round_trip::every").typed<EverySignature>();
  const EveryTensors ts;
  tg::IncludeDispatchKeyGuard include(DispatchKey::PrivateUse2);

  const std::vector<int64_t> il{1, 2, 3}, fixed{4, 5}, oil{6};
  const std::vector<double> fl{0.5, 1.5};
  const std::vector<Tensor> tl{ts.tl0, ts.tl1};
  const std::vector<std::optional<Tensor>> otl{ts.otl0, std::nullopt};

  g_every = EveryArgs{};
  Tensor r = every.call(ts.t, ts.ot, tl, otl, 7, -8, il, fixed, IntArrayRef(oil), 2.5, -3.25, fl, true, false,
                        {true, false, true}, "hello", "world", Scalar(int64_t{3}), Scalar(1.25), tg::kDouble,
                        tg::kHalf, Device(tg::kCUDA, 1), Device("cpu"), Layout::Strided, MemoryFormat::Preserve);
  CHECK(value(r) == 11.0f);
  CHECK(g_every.calls == 1);
  check_every(g_every, ts, /*given=*/true);

  g_every = EveryArgs{};
  const std::optional<Tensor> no_tensor;
  r = every.call(ts.t, no_tensor, tl, otl, 7, std::nullopt, il, fixed, std::nullopt, 2.5, std::nullopt, fl, true,
                 std::nullopt, {true, false, true}, "hello", std::nullopt, Scalar(int64_t{3}), std::nullopt,
                 tg::kDouble, std::nullopt, Device(tg::kCUDA, 1), std::nullopt, Layout::Strided,
                 MemoryFormat::Preserve);
  CHECK(g_every.calls == 1);
  check_every(g_every, ts, /*given=*/false);
  g_every = EveryArgs{};
}

// ---- Every return type ----

namespace {
Tensor ret_tensor(const Tensor& a) { return filled(value(a) * 2); }
std::tuple<Tensor, Tensor> ret_pair(const Tensor& a) { return {filled(value(a) + 1), filled(value(a) + 2)}; }
std::vector<Tensor> ret_list(const Tensor& a, int64_t n) {
  std::vector<Tensor> out;
  for (int64_t k = 0; k < n; ++k) out.push_back(filled(value(a) + static_cast<float>(k)));
  return out;
}
int64_t ret_int(const Tensor& a) { return static_cast<int64_t>(value(a)) * 10; }
double ret_float(const Tensor& a) { return value(a) / 4.0; }
bool ret_bool(const Tensor& a) { return value(a) > 0; }
int g_void_calls = 0;
void ret_void(const Tensor&) { ++g_void_calls; }
std::vector<int64_t> ret_ints(const Tensor& a) { return {static_cast<int64_t>(value(a)), -1}; }
std::string ret_str(const Tensor&) { return "returned"; }
Scalar ret_scalar(const Tensor& a) { return Scalar(static_cast<double>(value(a)) + 0.5); }
ScalarType ret_dtype(const Tensor& a) { return a.scalar_type(); }
}  // namespace

TEST_CASE("boxing: callBoxed pushes every return type of an unboxed kernel, and only the outputs") {
  Library lib(Library::Kind::Fragment, "test_box_returns");
  lib.def("tensor(Tensor a) -> Tensor");
  lib.def("pair(Tensor a) -> (Tensor, Tensor)");
  lib.def("list(Tensor a, int n) -> Tensor[]");
  lib.def("integer(Tensor a) -> int");
  lib.def("floating(Tensor a) -> float");
  lib.def("boolean(Tensor a) -> bool");
  lib.def("nothing(Tensor a) -> ()");
  lib.def("ints(Tensor a) -> int[]");
  lib.def("string(Tensor a) -> str");
  lib.def("scalar(Tensor a) -> Scalar");
  lib.def("dtype(Tensor a) -> ScalarType");
  Library cpu(Library::Kind::Impl, "test_box_returns", DispatchKey::CPU);
  cpu.impl("tensor", &ret_tensor);
  cpu.impl("pair", &ret_pair);
  cpu.impl("list", &ret_list);
  cpu.impl("integer", &ret_int);
  cpu.impl("floating", &ret_float);
  cpu.impl("boolean", &ret_bool);
  cpu.impl("nothing", &ret_void);
  cpu.impl("ints", &ret_ints);
  cpu.impl("string", &ret_str);
  cpu.impl("scalar", &ret_scalar);
  cpu.impl("dtype", &ret_dtype);

  // The stack holds a value below the arguments; a call must leave it alone.
  auto call = [](std::string_view name, Stack args) {
    Stack stack{IValue("caller's value")};
    for (IValue& v : args) stack.push_back(std::move(v));
    dispatcher().findSchemaOrThrow(std::string("test_box_returns::") + std::string(name)).callBoxed(stack);
    REQUIRE(!stack.empty());
    CHECK(stack.front().isString());
    CHECK(stack.front().toStringView() == "caller's value");
    return Stack(stack.begin() + 1, stack.end());
  };

  Stack out = call("tensor", {filled(3)});
  REQUIRE(out.size() == 1);
  CHECK(value(out[0].toTensor()) == 6.0f);

  out = call("pair", {filled(3)});
  REQUIRE(out.size() == 2);
  CHECK(value(out[0].toTensor()) == 4.0f);
  CHECK(value(out[1].toTensor()) == 5.0f);

  out = call("list", {filled(3), int64_t{3}});
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].isTensorList());
  REQUIRE(out[0].toTensorList().size() == 3);
  CHECK(value(out[0].toTensorList()[2]) == 5.0f);

  out = call("integer", {filled(4)});
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].isInt());
  CHECK(out[0].toInt() == 40);

  out = call("floating", {filled(3)});
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].isDouble());
  CHECK(out[0].toDouble() == 0.75);

  out = call("boolean", {filled(-1)});
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].isBool());
  CHECK_FALSE(out[0].toBool());

  g_void_calls = 0;
  out = call("nothing", {filled(1)});
  CHECK(out.empty());
  CHECK(g_void_calls == 1);

  out = call("ints", {filled(9)});
  REQUIRE(out.size() == 1);
  CHECK(ints(out[0].toIntList()) == std::vector<int64_t>{9, -1});

  out = call("string", {filled(0)});
  REQUIRE(out.size() == 1);
  CHECK(out[0].toStringView() == "returned");

  out = call("scalar", {filled(2)});
  REQUIRE(out.size() == 1);
  CHECK(out[0].toScalar().toDouble() == 2.5);

  out = call("dtype", {filled(0)});
  REQUIRE(out.size() == 1);
  CHECK(out[0].toScalarType() == tg::kFloat);
}

// ---- Typed calls reaching boxed-only kernels ----

namespace {
// What the boxed kernel saw on its stack, as printed IValues.
std::vector<std::string> g_boxed_seen;

// Records its arguments, pops them, and pushes one canned output per return of the schema.
void canned_boxed_kernel(const OperatorHandle& op, DispatchKeySet, Stack* stack) {
  const tg::FunctionSchema& schema = op.schema();
  const size_t n = schema.arguments.size();
  REQUIRE(stack->size() >= n);
  g_boxed_seen.clear();
  for (size_t k = stack->size() - n; k < stack->size(); ++k) {
    std::ostringstream out;
    out << (*stack)[k].type_name() << " ";
    if ((*stack)[k].isTensor()) {
      out << value((*stack)[k].toTensor());
    } else {
      out << (*stack)[k];
    }
    g_boxed_seen.push_back(out.str());
  }
  stack->erase(stack->end() - static_cast<std::ptrdiff_t>(n), stack->end());
  for (const tg::Argument& ret : schema.returns) {
    switch (ret.type.base) {
      case tg::BaseType::Tensor:
        if (ret.type.is_list) {
          stack->push_back(std::vector<Tensor>{filled(1), filled(2)});
        } else {
          stack->push_back(filled(static_cast<float>(stack->size()) + 100));
        }
        break;
      case tg::BaseType::Int: stack->push_back(int64_t{42}); break;
      case tg::BaseType::Float: stack->push_back(0.25); break;
      case tg::BaseType::Bool: stack->push_back(true); break;
      default: FAIL(("no canned output for " + ret.type.str()));
    }
  }
}
}  // namespace

TEST_CASE("boxing: a typed call reaches a boxed-only kernel with its arguments and returns converted") {
  Library lib(Library::Kind::Fragment, "test_box_typed");
  lib.def("mix(Tensor a, int n, float x, bool flag, str s, int[] sizes, Tensor? maybe, ScalarType? dtype, "
          "Scalar alpha) -> (Tensor, Tensor)");
  lib.def("count(Tensor a) -> int");
  lib.def("ratio(Tensor a) -> float");
  lib.def("check(Tensor a) -> bool");
  lib.def("split(Tensor a) -> Tensor[]");
  lib.def("sink(Tensor a, int n) -> ()");
  const KernelFunction boxed = KernelFunction::makeFromBoxedFunction(&canned_boxed_kernel);
  CHECK_FALSE(boxed.has_unboxed());
  CHECK(boxed.cpp_signature() == nullptr);
  for (const char* name : {"mix", "count", "ratio", "check", "split", "sink"}) lib.impl(name, DispatchKey::CPU, boxed);

  auto mix = dispatcher()
                 .findSchemaOrThrow("test_box_typed::mix")
                 .typed<std::tuple<Tensor, Tensor>(const Tensor&, int64_t, double, bool, std::string_view,
                                                   IntArrayRef, const std::optional<Tensor>&,
                                                   std::optional<ScalarType>, const Scalar&)>();
  auto [first, second] =
      mix.call(filled(5), 3, 0.5, true, "text", std::vector<int64_t>{2, 3}, std::nullopt, tg::kLong, Scalar(1.5));
  CHECK(g_boxed_seen == std::vector<std::string>{"Tensor 5", "int 3", "float 0.5", "bool True", "str \"text\"",
                                                 "int[] [2, 3]", "None None",
                                                 "int " + std::to_string(static_cast<int>(tg::kLong)), "float 1.5"});
  CHECK(value(first) == 100.0f);
  CHECK(value(second) == 101.0f);

  mix.call(filled(6), -1, 2.0, false, "", {}, filled(7), std::nullopt, Scalar(int64_t{2}));
  CHECK(g_boxed_seen == std::vector<std::string>{"Tensor 6", "int -1", "float 2", "bool False", "str \"\"",
                                                 "int[] []", "Tensor 7", "None None", "int 2"});

  CHECK(dispatcher().findSchemaOrThrow("test_box_typed::count").typed<int64_t(const Tensor&)>().call(filled(0)) == 42);
  CHECK(dispatcher().findSchemaOrThrow("test_box_typed::ratio").typed<double(const Tensor&)>().call(filled(0)) ==
        0.25);
  CHECK(dispatcher().findSchemaOrThrow("test_box_typed::check").typed<bool(const Tensor&)>().call(filled(0)));
  std::vector<Tensor> parts =
      dispatcher().findSchemaOrThrow("test_box_typed::split").typed<std::vector<Tensor>(const Tensor&)>().call(
          filled(0));
  REQUIRE(parts.size() == 2);
  CHECK(value(parts[1]) == 2.0f);
  g_boxed_seen.clear();
  dispatcher().findSchemaOrThrow("test_box_typed::sink").typed<void(const Tensor&, int64_t)>().call(filled(8), 9);
  CHECK(g_boxed_seen == std::vector<std::string>{"Tensor 8", "int 9"});
  g_boxed_seen.clear();
}

namespace {
void leaves_two(const OperatorHandle&, DispatchKeySet, Stack* stack) {
  stack->clear();
  stack->push_back(filled(1));
  stack->push_back(filled(2));
}
void leaves_an_int(const OperatorHandle&, DispatchKeySet, Stack* stack) {
  stack->clear();
  stack->push_back(int64_t{1});
}
}  // namespace

TEST_CASE("boxing: a boxed kernel that leaves the wrong outputs fails the typed call clearly") {
  Library lib(Library::Kind::Fragment, "test_box_bad_outputs");
  lib.def("two(Tensor a) -> Tensor");
  lib.def("wrong(Tensor a) -> Tensor");
  lib.impl("two", DispatchKey::CPU, KernelFunction::makeFromBoxedFunction(&leaves_two));
  lib.impl("wrong", DispatchKey::CPU, KernelFunction::makeFromBoxedFunction(&leaves_an_int));

  std::string msg = thrown<tg::Error>([] {
    dispatcher().findSchemaOrThrow("test_box_bad_outputs::two").typed<Tensor(const Tensor&)>().call(filled(0));
  });
  CAPTURE(msg);
  CHECK(contains(msg, "boxed kernel left 2 values on the stack, the typed call expects 1"));
  msg = thrown<tg::TypeError>([] {
    dispatcher().findSchemaOrThrow("test_box_bad_outputs::wrong").typed<Tensor(const Tensor&)>().call(filled(0));
  });
  CHECK(contains(msg, "expected a boxed value of type Tensor, got int"));
}

// ---- Defaults ----

namespace {
struct DefaultsSeen {
  Scalar alpha;
  std::optional<std::vector<int64_t>> dim;
  bool keepdim = true;
  std::optional<ScalarType> dtype = tg::kBool;
  std::vector<int64_t> stride;
  std::string reduction;
  double eps = 0;
  std::optional<ScalarType> out_dtype;
};
DefaultsSeen g_defaults;

Tensor defaults_kernel(const Tensor& self, const Scalar& alpha, tg::OptionalIntArrayRef dim, bool keepdim,
                       std::optional<ScalarType> dtype, IntArrayRef stride, std::string_view reduction, double eps,
                       std::optional<ScalarType> out_dtype) {
  g_defaults.alpha = alpha;
  g_defaults.dim = dim ? std::optional<std::vector<int64_t>>(dim->vec()) : std::nullopt;
  g_defaults.keepdim = keepdim;
  g_defaults.dtype = dtype;
  g_defaults.stride = stride.vec();
  g_defaults.reduction = std::string(reduction);
  g_defaults.eps = eps;
  g_defaults.out_dtype = out_dtype;
  return self;
}
}  // namespace

TEST_CASE("boxing: omitted trailing arguments take the schema's defaults") {
  Library lib(Library::Kind::Fragment, "test_box_defaults");
  lib.def("op(Tensor self, Scalar alpha=1, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, "
          "int[2] stride=1, str reduction=\"mean\", float eps=1e-05, ScalarType? out_dtype=long) -> Tensor");
  lib.impl("op", DispatchKey::CPU, &defaults_kernel);
  OperatorHandle op = dispatcher().findSchemaOrThrow("test_box_defaults::op");
  const Tensor self = filled(1);

  g_defaults = DefaultsSeen{};
  Stack stack{self};
  op.callBoxed(stack);
  REQUIRE(stack.size() == 1);
  CHECK(stack[0].toTensor().is_same(self));
  CHECK(g_defaults.alpha.is_integral(false));
  CHECK(g_defaults.alpha.toLong() == 1);
  CHECK_FALSE(g_defaults.dim.has_value());
  CHECK_FALSE(g_defaults.keepdim);
  CHECK_FALSE(g_defaults.dtype.has_value());
  CHECK(g_defaults.stride == std::vector<int64_t>{1, 1});
  CHECK(g_defaults.reduction == "mean");
  CHECK(g_defaults.eps == 1e-05);
  REQUIRE(g_defaults.out_dtype.has_value());
  CHECK(*g_defaults.out_dtype == tg::kLong);

  // Given arguments win; the rest still take their defaults.
  g_defaults = DefaultsSeen{};
  stack = Stack{self, 2.5, std::vector<int64_t>{0}, true, tg::kDouble};
  op.callBoxed(stack);
  REQUIRE(stack.size() == 1);
  CHECK(g_defaults.alpha.toDouble() == 2.5);
  REQUIRE(g_defaults.dim.has_value());
  CHECK(*g_defaults.dim == std::vector<int64_t>{0});
  CHECK(g_defaults.keepdim);
  REQUIRE(g_defaults.dtype.has_value());
  CHECK(*g_defaults.dtype == tg::kDouble);
  CHECK(g_defaults.stride == std::vector<int64_t>{1, 1});
  CHECK(g_defaults.reduction == "mean");
  CHECK(g_defaults.eps == 1e-05);

  // Every argument given: no default is used.
  g_defaults = DefaultsSeen{};
  stack = Stack{self, 1, IValue(), false, IValue(), std::vector<int64_t>{2, 3}, "sum", 0.5, IValue()};
  op.callBoxed(stack);
  REQUIRE(stack.size() == 1);
  CHECK(g_defaults.stride == std::vector<int64_t>{2, 3});
  CHECK(g_defaults.reduction == "sum");
  CHECK(g_defaults.eps == 0.5);
  CHECK_FALSE(g_defaults.out_dtype.has_value());
}

TEST_CASE("boxing: an int where a float is expected, or one int for an int[N], is converted") {
  Library lib(Library::Kind::Fragment, "test_box_coerce");
  lib.def("op(Tensor self, float eps, int[2] stride, int[1]? dim=None) -> Tensor");
  lib.impl("op", DispatchKey::CPU,
           +[](const Tensor& self, double eps, IntArrayRef stride, tg::OptionalIntArrayRef dim) {
             g_defaults.eps = eps;
             g_defaults.stride = stride.vec();
             g_defaults.dim = dim ? std::optional<std::vector<int64_t>>(dim->vec()) : std::nullopt;
             return self;
           });
  OperatorHandle op = dispatcher().findSchemaOrThrow("test_box_coerce::op");

  g_defaults = DefaultsSeen{};
  Stack stack{filled(0), int64_t{2}, int64_t{3}};
  op.callBoxed(stack);
  REQUIRE(stack.size() == 1);
  CHECK(g_defaults.eps == 2.0);
  CHECK(g_defaults.stride == std::vector<int64_t>{3, 3});  // PyTorch's `int[2] stride=3`
  CHECK_FALSE(g_defaults.dim.has_value());

  // The N in int[N] is what one int broadcasts to, not a required length: sum(dim=[0, 1]).
  stack = Stack{filled(0), 1.5, std::vector<int64_t>{1, 2}, std::vector<int64_t>{0, 1}};
  op.callBoxed(stack);
  REQUIRE(stack.size() == 1);
  REQUIRE(g_defaults.dim.has_value());
  CHECK(*g_defaults.dim == std::vector<int64_t>{0, 1});
  stack = Stack{filled(0), 1.5, std::vector<int64_t>{1, 2}, int64_t{4}};
  op.callBoxed(stack);
  REQUIRE(g_defaults.dim.has_value());
  CHECK(*g_defaults.dim == std::vector<int64_t>{4});
  g_defaults = DefaultsSeen{};
}

// ---- Argument errors ----

namespace {
int g_checked_calls = 0;
Tensor checked_kernel(const Tensor& a, int64_t, double, std::string_view, IntArrayRef, const std::optional<Tensor>&) {
  ++g_checked_calls;
  return a;
}
}  // namespace

TEST_CASE("boxing: a wrong argument type is a TypeError naming the argument and both types") {
  Library lib(Library::Kind::Fragment, "test_box_wrong");
  lib.def("op(Tensor a, int n, float x, str s, int[] sizes, Tensor? w=None) -> Tensor");
  lib.impl("op", DispatchKey::CPU, &checked_kernel);
  OperatorHandle op = dispatcher().findSchemaOrThrow("test_box_wrong::op");
  g_checked_calls = 0;

  auto error_for = [&](Stack stack) { return thrown<tg::TypeError>([&] { op.callBoxed(stack); }); };
  const Tensor t = filled(0);
  const std::vector<int64_t> sizes{1};

  std::string msg = error_for({t, "three", 1.0, "s", sizes});
  CAPTURE(msg);
  CHECK(contains(msg, "[test_box_wrong::op] argument 'n' (position 1) expected int, got str"));
  CHECK(contains(error_for({int64_t{0}, int64_t{3}, 1.0, "s", sizes}),
                 "argument 'a' (position 0) expected Tensor, got int"));
  CHECK(contains(error_for({t, IValue(), 1.0, "s", sizes}), "argument 'n' (position 1) expected int, got None"));
  CHECK(contains(error_for({t, int64_t{3}, true, "s", sizes}), "argument 'x' (position 2) expected float, got bool"));
  CHECK(contains(error_for({t, int64_t{3}, 1.0, int64_t{5}, sizes}),
                 "argument 's' (position 3) expected str, got int"));
  CHECK(contains(error_for({t, int64_t{3}, 1.0, "s", std::vector<double>{1.0}}),
                 "argument 'sizes' (position 4) expected int[], got float[]"));
  CHECK(contains(error_for({t, int64_t{3}, 1.0, "s", int64_t{1}}),
                 "argument 'sizes' (position 4) expected int[], got int"));  // only int[N] takes one int
  CHECK(contains(error_for({t, int64_t{3}, 1.0, "s", sizes, 2.0}),
                 "argument 'w' (position 5) expected Tensor?, got float"));
  CHECK(g_checked_calls == 0);  // the kernel never ran

  // The same arguments, well typed, do reach it.
  Stack stack{t, int64_t{3}, 1.0, "s", sizes, IValue()};
  op.callBoxed(stack);
  CHECK(g_checked_calls == 1);
  CHECK(stack.size() == 1);
}

TEST_CASE("boxing: too few arguments is an error naming the first one missing without a default") {
  Library lib(Library::Kind::Fragment, "test_box_missing");
  lib.def("op(Tensor self, Tensor other, int n=2) -> Tensor");
  lib.impl("op", DispatchKey::CPU, +[](const Tensor& self, const Tensor&, int64_t) { return self; });
  OperatorHandle op = dispatcher().findSchemaOrThrow("test_box_missing::op");

  std::string msg = thrown<tg::ValueError>([&] {
    Stack stack{filled(0)};
    op.callBoxed(stack);
  });
  CAPTURE(msg);
  CHECK(contains(msg, "[test_box_missing::op] expects 3 arguments"));
  CHECK(contains(msg, "got 1"));
  CHECK(contains(msg, "argument 'other' has no default"));

  msg = thrown<tg::ValueError>([&] {
    Stack stack;
    op.callBoxed(stack);
  });
  CHECK(contains(msg, "argument 'self' has no default"));

  Stack stack{filled(0), filled(1)};  // n takes its default
  op.callBoxed(stack);
  CHECK(stack.size() == 1);
}

// ---- schema_values directly ----

namespace {
// The type of argument `name` in a schema written for these tests.
const tg::Argument& argument(std::string_view name) {
  static const tg::FunctionSchema schema = tg::parse_schema(
      "types(Tensor t, Tensor? ot, Tensor[] tl, Tensor?[] otl, int i, int? oi, int[] il, int[2] fixed, int[]? oil, "
      "SymInt si, float f, float[] fl, bool b, bool[3] mask, str s, Scalar sc, ScalarType st, Device dev, "
      "Layout layout, MemoryFormat mf, Generator? gen, "
      "Scalar alpha=1, Scalar beta=0.5, Scalar gamma=True, int[1]? dim=None, bool keepdim=False, "
      "ScalarType? dtype=None, ScalarType? long_dtype=long, int[2] stride=1, int[] dims=[0, -1], int[] empty=[], "
      "str reduction=\"mean\", str ord='fro', float eps=1e-05, float p=2, int n=-3, "
      "MemoryFormat memory_format=contiguous_format, Layout? layout2=strided, Device? device2=None, "
      "Tensor[] tensors=[], float[] floats=[]) -> Tensor");
  for (const tg::Argument& a : schema.arguments) {
    if (a.name == name) return a;
  }
  FAIL(("no argument " + std::string(name)));
  return schema.arguments.front();
}
bool matches(std::string_view name, const IValue& v) { return tg::ivalue_matches(argument(name).type, v); }
}  // namespace

TEST_CASE("boxing: ivalue_matches accepts exactly the values a schema type allows") {
  const Tensor t = filled(0);
  const IValue none;

  CHECK(matches("t", t));
  CHECK_FALSE(matches("t", none));
  CHECK_FALSE(matches("t", int64_t{1}));
  CHECK_FALSE(matches("t", std::vector<Tensor>{t}));
  CHECK(matches("ot", t));
  CHECK(matches("ot", none));
  CHECK_FALSE(matches("ot", 1.0));

  CHECK(matches("tl", std::vector<Tensor>{t, t}));
  CHECK(matches("tl", std::vector<Tensor>{}));
  CHECK_FALSE(matches("tl", t));
  CHECK_FALSE(matches("tl", none));
  CHECK(matches("otl", std::vector<IValue>{IValue(t), none}));
  CHECK_FALSE(matches("otl", t));
  // A Tensor[] stands for a Tensor?[] without None, and is rewritten into that list's form.
  IValue tensors(std::vector<Tensor>{t, t});
  REQUIRE(matches("otl", tensors));
  tg::coerce_ivalue(argument("otl").type, tensors);
  REQUIRE(tensors.isList());
  CHECK(tensors.toList().size() == 2);
  CHECK(tensors.toList()[1].toTensor().is_same(t));

  CHECK(matches("i", int64_t{1}));
  CHECK_FALSE(matches("i", 1.0));
  CHECK_FALSE(matches("i", true));
  CHECK_FALSE(matches("i", none));
  CHECK(matches("oi", none));
  CHECK(matches("si", int64_t{4}));
  CHECK(matches("il", std::vector<int64_t>{1, 2, 3}));
  CHECK(matches("il", std::vector<int64_t>{}));
  CHECK_FALSE(matches("il", int64_t{1}));
  CHECK_FALSE(matches("il", std::vector<double>{1.0}));
  CHECK(matches("fixed", std::vector<int64_t>{1, 2}));
  CHECK(matches("fixed", int64_t{1}));  // broadcast to [1, 1]
  CHECK(matches("oil", none));
  CHECK(matches("oil", std::vector<int64_t>{0, 1}));

  CHECK(matches("f", 1.5));
  CHECK(matches("f", int64_t{1}));  // an int is a valid float
  CHECK_FALSE(matches("f", true));
  CHECK(matches("fl", std::vector<double>{0.5}));
  CHECK_FALSE(matches("fl", std::vector<int64_t>{1}));
  CHECK(matches("b", false));
  CHECK_FALSE(matches("b", int64_t{0}));
  CHECK(matches("mask", std::vector<bool>{true, false, true}));
  CHECK_FALSE(matches("mask", true));

  CHECK(matches("s", "text"));
  CHECK_FALSE(matches("s", int64_t{0}));
  CHECK(matches("sc", int64_t{1}));
  CHECK(matches("sc", 1.5));
  CHECK(matches("sc", true));
  CHECK_FALSE(matches("sc", t));  // a Tensor is not a Scalar
  CHECK_FALSE(matches("sc", "1"));
  CHECK(matches("st", tg::kFloat));
  CHECK_FALSE(matches("st", "float32"));
  CHECK(matches("dev", Device(tg::kCPU)));
  CHECK_FALSE(matches("dev", "cpu"));
  CHECK(matches("layout", Layout::Strided));
  CHECK(matches("mf", MemoryFormat::Contiguous));
  CHECK(matches("gen", none));
  CHECK_FALSE(matches("gen", int64_t{0}));
}

TEST_CASE("boxing: default_ivalue turns each default literal into the value it stands for") {
  auto default_of = [](std::string_view name) { return tg::default_ivalue(argument(name)); };

  IValue v = default_of("alpha");
  REQUIRE(v.isInt());
  CHECK(v.toInt() == 1);
  v = default_of("beta");
  REQUIRE(v.isDouble());
  CHECK(v.toDouble() == 0.5);
  v = default_of("gamma");
  REQUIRE(v.isBool());
  CHECK(v.toBool());
  CHECK(default_of("dim").isNone());
  v = default_of("keepdim");
  REQUIRE(v.isBool());
  CHECK_FALSE(v.toBool());
  CHECK(default_of("dtype").isNone());
  CHECK(default_of("long_dtype").toScalarType() == tg::kLong);
  CHECK(ints(default_of("stride").toIntList()) == std::vector<int64_t>{1, 1});
  CHECK(ints(default_of("dims").toIntList()) == std::vector<int64_t>{0, -1});
  CHECK(default_of("empty").toIntList().empty());
  CHECK(default_of("reduction").toStringView() == "mean");
  CHECK(default_of("ord").toStringView() == "fro");
  v = default_of("eps");
  REQUIRE(v.isDouble());
  CHECK(v.toDouble() == 1e-05);
  v = default_of("p");
  REQUIRE(v.isDouble());  // a float argument's default is a float even when written as an integer
  CHECK(v.toDouble() == 2.0);
  CHECK(default_of("n").toInt() == -3);
  CHECK(default_of("memory_format").toMemoryFormat() == MemoryFormat::Contiguous);
  CHECK(default_of("layout2").toLayout() == Layout::Strided);
  CHECK(default_of("device2").isNone());
  CHECK(default_of("tensors").toTensorList().empty());
  CHECK(default_of("floats").toDoubleList().empty());
  // Every default fits its own type.
  for (const char* name : {"alpha", "beta", "gamma", "dim", "keepdim", "dtype", "long_dtype", "stride", "dims",
                           "empty", "reduction", "ord", "eps", "p", "n", "memory_format", "layout2", "device2",
                           "tensors", "floats"}) {
    CAPTURE(name);
    CHECK(tg::ivalue_matches(argument(name).type, default_of(name)));
  }

  // Errors: no default, None for a non-optional type, a literal that does not fit.
  std::string msg = thrown<tg::ValueError>([&] { default_of("i"); });
  CHECK(contains(msg, "argument 'i' has no default"));
  auto with_default = [](const char* type_schema, const char* literal) {
    tg::Argument a = tg::parse_schema(std::string("f(") + type_schema + " x) -> ()").arguments.at(0);
    a.default_value = literal;
    return a;
  };
  msg = thrown<tg::ValueError>([&] { tg::default_ivalue(with_default("int", "None")); });
  CHECK(contains(msg, "default None of argument 'x' needs an optional type"));
  msg = thrown<tg::ValueError>([&] { tg::default_ivalue(with_default("int", "abc")); });
  CHECK(contains(msg, "default 'abc' of argument 'x' is not an integer"));
  msg = thrown<tg::ValueError>([&] { tg::default_ivalue(with_default("bool", "true")); });
  CHECK(contains(msg, "must be True or False"));
  msg = thrown<tg::ValueError>([&] { tg::default_ivalue(with_default("str", "mean")); });
  CHECK(contains(msg, "must be quoted"));
  msg = thrown<tg::ValueError>([&] { tg::default_ivalue(with_default("float", "fast")); });
  CHECK(contains(msg, "is not a number"));
  CHECK_THROWS_AS(tg::default_ivalue(with_default("ScalarType", "complex")), tg::ValueError);
}
