// Tests for the Dispatcher and Library: registration and lookup, which kernel a call reaches
// (priority, thread-local include/exclude, alias keys, fallthroughs, fallbacks, shadowing),
// redispatch, the errors every misuse raises, and calls racing with registrations.
// Each TEST_CASE registers its operators in its own namespace, in Libraries that undo their
// registrations when the test ends, so tests never see each other's kernels.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "test_helpers.h"

namespace {

using test_helpers::contains;
using test_helpers::dispatcher;
using test_helpers::filled;
using test_helpers::thrown;
using test_helpers::value;

using tg::DispatchKey;
using tg::DispatchKeySet;
using tg::KernelFunction;
using tg::Library;
using tg::OperatorHandle;
using tg::Stack;
using tg::Tensor;



// A CPU tensor whose key set has `added` and lacks `removed`.
Tensor with_keys(DispatchKeySet added, DispatchKeySet removed = {}) {
  Tensor t = filled(0);
  added.for_each([&](DispatchKey k) { t.unsafeGetTensorImpl()->add_key(k); });
  removed.for_each([&](DispatchKey k) { t.unsafeGetTensorImpl()->remove_key(k); });
  return t;
}
// A tensor dispatching as if it lived on a GPU (no GPU needed: only its keys matter here).
Tensor cuda_keyed() { return with_keys(DispatchKeySet(DispatchKey::CUDA), DispatchKeySet(DispatchKey::CPU)); }

std::string printed(DispatchKeySet ks) {
  std::ostringstream out;
  out << ks;
  return out.str();
}



// What the recording kernels below saw, in call order: "<kernel> <key set it received>".
std::vector<std::string>& trace() {
  static std::vector<std::string> calls;
  return calls;
}
void record(std::string_view kernel, DispatchKeySet ks) { trace().push_back(std::string(kernel) + " " + printed(ks)); }
using Trace = std::vector<std::string>;

// Calls the unary operator `name` (Tensor -> Tensor) typed, then returns and clears the trace.
Trace trace_of_call(std::string_view name, const Tensor& t) {
  trace().clear();
  dispatcher().findSchemaOrThrow(name).typed<Tensor(const Tensor&)>().call(t);
  Trace result = trace();
  trace().clear();
  return result;
}

Tensor cpu_kernel(DispatchKeySet ks, const Tensor& a) {
  record("CPU", ks);
  return a;
}
Tensor cuda_kernel(DispatchKeySet ks, const Tensor& a) {
  record("CUDA", ks);
  return a;
}
Tensor explicit_kernel(DispatchKeySet ks, const Tensor& a) {
  record("CompositeExplicitAutograd", ks);
  return a;
}
Tensor implicit_kernel(DispatchKeySet ks, const Tensor& a) {
  record("CompositeImplicitAutograd", ks);
  return a;
}
Tensor other_cpu_kernel(DispatchKeySet ks, const Tensor& a) {
  record("other CPU", ks);
  return a;
}
Tensor third_cpu_kernel(DispatchKeySet ks, const Tensor& a) {
  record("third CPU", ks);
  return a;
}

// Adds its inputs' first elements, into a new tensor.
Tensor add_kernel(const Tensor& a, const Tensor& b) { return filled(value(a) + value(b)); }

}  // namespace

// ---- Registration and lookup ----

TEST_CASE("dispatcher: def + impl, then typed and boxed calls reach the kernel") {
  Library lib(Library::Kind::Fragment, "test_basic");
  lib.def("add(Tensor a, Tensor b) -> Tensor");
  lib.impl("add", DispatchKey::CPU, &add_kernel);

  OperatorHandle op = dispatcher().findSchemaOrThrow("test_basic::add");
  Tensor r = op.typed<Tensor(const Tensor&, const Tensor&)>().call(filled(2), filled(3.5f));
  CHECK(value(r) == 5.5f);

  Stack stack{filled(1), filled(-4)};
  op.callBoxed(stack);
  REQUIRE(stack.size() == 1);
  CHECK(value(stack[0].toTensor()) == -3.0f);

  CHECK(op.registeredKeys() == std::vector<DispatchKey>{DispatchKey::CPU});
  CHECK(op.hasKernelForDispatchKey(DispatchKey::CPU));
  CHECK_FALSE(op.hasKernelForDispatchKey(DispatchKey::CUDA));
  CHECK_FALSE(op.hasKernelForDispatchKey(DispatchKey::CompositeExplicitAutograd));
}

TEST_CASE("dispatcher: findSchema by full name and by name and overload") {
  Library lib(Library::Kind::Fragment, "test_find");
  lib.def("op(Tensor a) -> Tensor");
  lib.def("op.first(Tensor a) -> Tensor");
  lib.def("test_find::op.second(Tensor a, int n) -> Tensor");  // an explicit namespace is kept

  std::optional<OperatorHandle> first = dispatcher().findSchema("test_find::op.first");
  REQUIRE(first.has_value());
  CHECK(first->operator_name().name == "test_find::op");
  CHECK(first->operator_name().overload_name == "first");
  CHECK(first->schema().str() == "test_find::op.first(Tensor a) -> Tensor");

  std::optional<OperatorHandle> second = dispatcher().findSchema(tg::OperatorName{"test_find::op", "second"});
  REQUIRE(second.has_value());
  CHECK(second->schema().arguments.size() == 2);
  CHECK(dispatcher().findSchemaOrThrow("test_find::op", "second") == *second);
  CHECK(dispatcher().findSchemaOrThrow("test_find::op.second") == *second);
  CHECK_FALSE(*first == *second);

  std::optional<OperatorHandle> plain = dispatcher().findSchema("test_find::op");
  REQUIRE(plain.has_value());
  CHECK(plain->operator_name().overload_name.empty());
  CHECK(dispatcher().findSchemaOrThrow("test_find::op", "") == *plain);

  CHECK_FALSE(dispatcher().findSchema("test_find::op.third").has_value());
  CHECK_FALSE(dispatcher().findSchema("op.first").has_value());  // the namespace is part of the name
  CHECK_FALSE(dispatcher().findSchema("test_other::op.first").has_value());

  // An operator with kernels but no schema is not found.
  Library impl_only(Library::Kind::Impl, "test_find", DispatchKey::CPU);
  impl_only.impl("undefined_op", &cpu_kernel);
  CHECK_FALSE(dispatcher().findSchema("test_find::undefined_op").has_value());
}

TEST_CASE("dispatcher: findSchemaOrThrow on a missing operator suggests the closest name") {
  Library lib(Library::Kind::Fragment, "test_suggest");
  lib.def("frobnicate.Tensor(Tensor a) -> Tensor");

  std::string msg = thrown<tg::ValueError>([] { dispatcher().findSchemaOrThrow("test_suggest::frobnicat.Tensor"); });
  CAPTURE(msg);
  CHECK(contains(msg, "no operator named 'test_suggest::frobnicat.Tensor'"));
  CHECK(contains(msg, "did you mean 'test_suggest::frobnicate.Tensor'?"));

  msg = thrown<tg::ValueError>([] { dispatcher().findSchemaOrThrow("test_suggest::frobnicate", "Tensr"); });
  CHECK(contains(msg, "did you mean 'test_suggest::frobnicate.Tensor'?"));

  // Nothing close: no suggestion, but still the expected form of a name.
  msg = thrown<tg::ValueError>([] { dispatcher().findSchemaOrThrow("zzzzzzzzzzzzzzzzzzzzzz::qqqqqqq"); });
  CHECK(contains(msg, "no operator named 'zzzzzzzzzzzzzzzzzzzzzz::qqqqqqq'"));
  CHECK_FALSE(contains(msg, "did you mean"));
}

TEST_CASE("dispatcher: allOperatorNames lists defined operators, sorted") {
  std::vector<std::string> names;
  {
    Library lib(Library::Kind::Fragment, "test_names");
    lib.def("zeta(Tensor a) -> Tensor");
    lib.def("alpha.over(Tensor a) -> Tensor");
    Library impl_only(Library::Kind::Impl, "test_names", DispatchKey::CPU);
    impl_only.impl("no_schema", &cpu_kernel);
    names = dispatcher().allOperatorNames();
  }
  CHECK(std::is_sorted(names.begin(), names.end()));
  auto alpha = std::find(names.begin(), names.end(), "test_names::alpha.over");
  auto zeta = std::find(names.begin(), names.end(), "test_names::zeta");
  REQUIRE(alpha != names.end());
  REQUIRE(zeta != names.end());
  CHECK(alpha < zeta);
  CHECK(std::find(names.begin(), names.end(), "test_names::no_schema") == names.end());

  // Destroying the Library undid the defs.
  std::vector<std::string> after = dispatcher().allOperatorNames();
  CHECK(std::find(after.begin(), after.end(), "test_names::zeta") == after.end());
  CHECK_FALSE(dispatcher().findSchema("test_names::zeta").has_value());
}

TEST_CASE("dispatcher: dumpState shows the schema, the kernels and where they were registered") {
  Library lib(Library::Kind::Fragment, "test_dump", std::nullopt, "test_dispatcher.cpp", 42);
  lib.def("op(Tensor a) -> Tensor");
  lib.impl("op", DispatchKey::CPU, &cpu_kernel);
  lib.impl("op", DispatchKey::CompositeExplicitAutograd, &explicit_kernel);
  OperatorHandle op = dispatcher().findSchemaOrThrow("test_dump::op");

  std::string dump = op.dumpState();
  CAPTURE(dump);
  CHECK(contains(dump, "operator test_dump::op\n"));
  CHECK(contains(dump, "schema: test_dump::op(Tensor a) -> Tensor\n"));
  CHECK(contains(dump, "CPU: test_dispatcher.cpp:42\n"));
  CHECK(contains(dump, "CompositeExplicitAutograd: test_dispatcher.cpp:42\n"));
  CHECK_FALSE(contains(dump, "CUDA"));
  CHECK_FALSE(contains(dump, "shadows"));

  Library newer(Library::Kind::Impl, "test_dump", DispatchKey::CPU, "newer.cpp", 7);
  newer.impl("op", &other_cpu_kernel);
  dump = op.dumpState();
  CHECK(contains(dump, "CPU: newer.cpp:7 (shadows earlier registrations)\n"));
}

// ---- Which kernel a call reaches ----

TEST_CASE("dispatcher: a missing kernel is a NotImplementedError naming the operator, the key and the kernels") {
  Library lib(Library::Kind::Fragment, "test_missing");
  lib.def("op(Tensor a) -> Tensor");
  lib.impl("op", DispatchKey::CUDA, &cuda_kernel);
  lib.impl("op", DispatchKey::PrivateUse1, &cuda_kernel);
  lib.def("bare(Tensor a) -> Tensor");

  std::string msg = thrown<tg::NotImplementedError>([] { trace_of_call("test_missing::op", filled(1)); });
  CAPTURE(msg);
  CHECK(contains(msg, "[test_missing::op]"));
  CHECK(contains(msg, "no kernel for dispatch key CPU"));
  CHECK(contains(msg, "registered for: CUDA, PrivateUse1"));

  // The key named is the highest of the call's keys.
  msg = thrown<tg::NotImplementedError>(
      [] { trace_of_call("test_missing::op", with_keys(DispatchKeySet(DispatchKey::Autograd))); });
  CHECK(contains(msg, "no kernel for dispatch key Autograd"));
  CHECK(contains(msg, "[CPU, Autograd]"));

  // The boxed path reports the same.
  msg = thrown<tg::NotImplementedError>([] {
    Stack stack{filled(1)};
    dispatcher().findSchemaOrThrow("test_missing::op").callBoxed(stack);
  });
  CHECK(contains(msg, "no kernel for dispatch key CPU"));

  msg = thrown<tg::NotImplementedError>([] { trace_of_call("test_missing::bare", filled(1)); });
  CHECK(contains(msg, "[test_missing::bare]"));
  CHECK(contains(msg, "registered for: none"));

  // A CUDA-keyed tensor does reach the CUDA kernel.
  CHECK(trace_of_call("test_missing::op", cuda_keyed()) == Trace{"CUDA [CUDA]"});
}

TEST_CASE("dispatcher: a call with no tensor argument fails clearly unless a key is included") {
  Library lib(Library::Kind::Fragment, "test_no_tensor");
  lib.def("make(int n) -> Tensor");
  lib.impl("make", DispatchKey::CPU, +[](int64_t n) { return filled(static_cast<float>(n)); });
  auto make = dispatcher().findSchemaOrThrow("test_no_tensor::make").typed<Tensor(int64_t)>();

  std::string msg = thrown<tg::NotImplementedError>([&] { make.call(3); });
  CAPTURE(msg);
  CHECK(contains(msg, "[test_no_tensor::make]"));
  CHECK(contains(msg, "no tensor argument"));
  CHECK(contains(msg, "registered for: CPU"));

  msg = thrown<tg::NotImplementedError>([] {
    Stack stack{int64_t{3}};
    dispatcher().findSchemaOrThrow("test_no_tensor::make").callBoxed(stack);
  });
  CHECK(contains(msg, "no tensor argument"));

  // What BackendSelect does for factories: pick the backend thread-locally.
  tg::IncludeDispatchKeyGuard cpu(DispatchKey::CPU);
  CHECK(value(make.call(3)) == 3.0f);
}

namespace {
// Autograd kernel of test_priority::op: records, then redispatches below Autograd.
Tensor priority_autograd(DispatchKeySet ks, const Tensor& a) {
  record("Autograd", ks);
  static auto op = dispatcher().findSchemaOrThrow("test_priority::op").typed<Tensor(const Tensor&)>();
  return op.redispatch(ks & DispatchKeySet::below(DispatchKey::Autograd), a);
}
}  // namespace

TEST_CASE("dispatcher: Autograd runs before CPU, and redispatching below it reaches CPU") {
  Library lib(Library::Kind::Fragment, "test_priority");
  lib.def("op(Tensor a) -> Tensor");
  lib.impl("op", DispatchKey::CPU, &cpu_kernel);
  lib.impl("op", DispatchKey::Autograd, &priority_autograd);

  CHECK(trace_of_call("test_priority::op", filled(1)) == Trace{"CPU [CPU]"});
  CHECK(trace_of_call("test_priority::op", with_keys(DispatchKeySet(DispatchKey::Autograd))) ==
        Trace{"Autograd [CPU, Autograd]", "CPU [CPU]"});

  // Keys the redispatch does not mask stay in the set the next kernel receives.
  lib.impl("op", DispatchKey::Tracer, +[](DispatchKeySet ks, const Tensor& a) {
    record("Tracer", ks);
    return dispatcher().findSchemaOrThrow("test_priority::op").typed<Tensor(const Tensor&)>().redispatch(
        ks.below_highest(), a);
  });
  CHECK(trace_of_call("test_priority::op", with_keys({DispatchKey::Autograd, DispatchKey::Tracer})) ==
        Trace{"Autograd [CPU, Tracer, Autograd]", "Tracer [CPU, Tracer]", "CPU [CPU]"});

  // The tensor's value flows through every layer.
  Tensor t = with_keys(DispatchKeySet(DispatchKey::Autograd));
  Tensor r = dispatcher().findSchemaOrThrow("test_priority::op").typed<Tensor(const Tensor&)>().call(t);
  CHECK(r.is_same(t));
  trace().clear();
}

TEST_CASE("dispatcher: a thread-local include adds a key and an exclude removes one") {
  Library lib(Library::Kind::Fragment, "test_tls");
  lib.def("op(Tensor a) -> Tensor");
  lib.impl("op", DispatchKey::CPU, &cpu_kernel);
  lib.impl("op", DispatchKey::PrivateUse2, +[](DispatchKeySet ks, const Tensor& a) {
    record("PrivateUse2", ks);
    return dispatcher().findSchemaOrThrow("test_tls::op").typed<Tensor(const Tensor&)>().redispatch(
        ks.below_highest(), a);
  });
  lib.impl("op", DispatchKey::Autograd, +[](DispatchKeySet ks, const Tensor& a) {
    record("Autograd", ks);
    return a;
  });

  {
    tg::IncludeDispatchKeyGuard include(DispatchKey::PrivateUse2);
    CHECK(trace_of_call("test_tls::op", filled(1)) == Trace{"PrivateUse2 [CPU, PrivateUse2]", "CPU [CPU]"});
    // Boxed calls honour the thread-local sets too.
    trace().clear();
    Stack stack{filled(1)};
    dispatcher().findSchemaOrThrow("test_tls::op").callBoxed(stack);
    CHECK(trace() == Trace{"PrivateUse2 [CPU, PrivateUse2]", "CPU [CPU]"});
    trace().clear();
  }
  CHECK(trace_of_call("test_tls::op", filled(1)) == Trace{"CPU [CPU]"});

  const Tensor autograd = with_keys(DispatchKeySet(DispatchKey::Autograd));
  CHECK(trace_of_call("test_tls::op", autograd) == Trace{"Autograd [CPU, Autograd]"});
  {
    tg::ExcludeDispatchKeyGuard exclude(DispatchKey::Autograd);
    CHECK(trace_of_call("test_tls::op", autograd) == Trace{"CPU [CPU]"});
  }
  {
    tg::AutoDispatchBelowAutograd below;
    CHECK(trace_of_call("test_tls::op", autograd) == Trace{"CPU [CPU]"});
  }
  CHECK(trace_of_call("test_tls::op", autograd) == Trace{"Autograd [CPU, Autograd]"});
}

TEST_CASE("dispatcher: CompositeExplicitAutograd serves every backend, and a backend kernel wins over it") {
  Library lib(Library::Kind::Fragment, "test_explicit");
  lib.def("op(Tensor a) -> Tensor");
  lib.impl("op", DispatchKey::CompositeExplicitAutograd, &explicit_kernel);
  OperatorHandle op = dispatcher().findSchemaOrThrow("test_explicit::op");

  CHECK(trace_of_call("test_explicit::op", filled(1)) == Trace{"CompositeExplicitAutograd [CPU]"});
  CHECK(trace_of_call("test_explicit::op", cuda_keyed()) == Trace{"CompositeExplicitAutograd [CUDA]"});
  CHECK(op.hasKernelForDispatchKey(DispatchKey::CUDA));
  CHECK(op.hasKernelForDispatchKey(DispatchKey::CompositeExplicitAutograd));
  // It does not serve Autograd: an explicit composite needs its own autograd kernel.
  std::string msg = thrown<tg::NotImplementedError>(
      [] { trace_of_call("test_explicit::op", with_keys(DispatchKeySet(DispatchKey::Autograd))); });
  CHECK(contains(msg, "no kernel for dispatch key Autograd"));
  CHECK(contains(msg, "registered for: CompositeExplicitAutograd"));
  CHECK_FALSE(op.hasKernelForDispatchKey(DispatchKey::Autograd));

  {
    Library cpu(Library::Kind::Impl, "test_explicit", DispatchKey::CPU);
    cpu.impl("op", &cpu_kernel);
    CHECK(trace_of_call("test_explicit::op", filled(1)) == Trace{"CPU [CPU]"});
    CHECK(trace_of_call("test_explicit::op", cuda_keyed()) == Trace{"CompositeExplicitAutograd [CUDA]"});
  }
  CHECK(trace_of_call("test_explicit::op", filled(1)) == Trace{"CompositeExplicitAutograd [CPU]"});
}

TEST_CASE("dispatcher: CompositeImplicitAutograd serves backends and Autograd, unless a backend kernel exists") {
  Library lib(Library::Kind::Fragment, "test_implicit");
  // def with a kernel registers it as the CompositeImplicitAutograd kernel.
  lib.def("op(Tensor a) -> Tensor", KernelFunction::makeFromUnboxedRuntimeFunction(&implicit_kernel));
  OperatorHandle op = dispatcher().findSchemaOrThrow("test_implicit::op");
  CHECK(op.registeredKeys() == std::vector<DispatchKey>{DispatchKey::CompositeImplicitAutograd});

  const Tensor autograd = with_keys(DispatchKeySet(DispatchKey::Autograd));
  CHECK(trace_of_call("test_implicit::op", filled(1)) == Trace{"CompositeImplicitAutograd [CPU]"});
  CHECK(trace_of_call("test_implicit::op", cuda_keyed()) == Trace{"CompositeImplicitAutograd [CUDA]"});
  // On Autograd the composite runs once, and its decomposition is what autograd sees.
  CHECK(trace_of_call("test_implicit::op", autograd) == Trace{"CompositeImplicitAutograd [CPU, Autograd]"});

  {
    Library cpu(Library::Kind::Impl, "test_implicit", DispatchKey::CPU);
    cpu.impl("op", &cpu_kernel);
    CHECK(trace_of_call("test_implicit::op", filled(1)) == Trace{"CPU [CPU]"});
    CHECK(trace_of_call("test_implicit::op", cuda_keyed()) == Trace{"CompositeImplicitAutograd [CUDA]"});
    // A backend kernel means the composite is not what runs on CPU, so it cannot serve Autograd.
    std::string msg = thrown<tg::NotImplementedError>([&] { trace_of_call("test_implicit::op", autograd); });
    CHECK(contains(msg, "no kernel for dispatch key Autograd"));
  }
  CHECK(trace_of_call("test_implicit::op", autograd) == Trace{"CompositeImplicitAutograd [CPU, Autograd]"});

  {
    // So does an explicit composite; it also takes the backends over from the implicit one.
    Library explicit_lib(Library::Kind::Fragment, "test_implicit");
    explicit_lib.impl("op", DispatchKey::CompositeExplicitAutograd, &explicit_kernel);
    CHECK(trace_of_call("test_implicit::op", filled(1)) == Trace{"CompositeExplicitAutograd [CPU]"});
    CHECK_THROWS_AS(trace_of_call("test_implicit::op", autograd), tg::NotImplementedError);
  }

  {
    // A kernel registered on Autograd itself wins over the composite there.
    Library autograd_lib(Library::Kind::Impl, "test_implicit", DispatchKey::Autograd);
    autograd_lib.impl("op", &other_cpu_kernel);
    CHECK(trace_of_call("test_implicit::op", autograd) == Trace{"other CPU [CPU, Autograd]"});
  }
}

TEST_CASE("dispatcher: a fallthrough kernel on one operator skips that key for that operator only") {
  Library lib(Library::Kind::Fragment, "test_fallthrough");
  lib.def("skips(Tensor a) -> Tensor");
  lib.def("stops(Tensor a) -> Tensor");
  lib.impl("skips", DispatchKey::CPU, &cpu_kernel);
  lib.impl("stops", DispatchKey::CPU, &cpu_kernel);
  lib.impl("skips", DispatchKey::Autograd, KernelFunction::makeFallthrough());

  const Tensor autograd = with_keys(DispatchKeySet(DispatchKey::Autograd));
  // The key is masked out before lookup, so the CPU kernel does not see it either.
  CHECK(trace_of_call("test_fallthrough::skips", autograd) == Trace{"CPU [CPU]"});
  CHECK_FALSE(dispatcher().findSchemaOrThrow("test_fallthrough::skips").hasKernelForDispatchKey(DispatchKey::Autograd));
  // Every operator falls through BackendSelect unless it registers a kernel there.
  CHECK_FALSE(
      dispatcher().findSchemaOrThrow("test_fallthrough::skips").hasKernelForDispatchKey(DispatchKey::BackendSelect));
  CHECK_THROWS_AS(trace_of_call("test_fallthrough::stops", autograd), tg::NotImplementedError);

  // Boxed calls skip it the same way.
  trace().clear();
  Stack stack{autograd};
  dispatcher().findSchemaOrThrow("test_fallthrough::skips").callBoxed(stack);
  CHECK(trace() == Trace{"CPU [CPU]"});
  trace().clear();

  // Redispatching with the fallthrough key still set (a caller that did not mask) also skips it.
  auto skips = dispatcher().findSchemaOrThrow("test_fallthrough::skips").typed<Tensor(const Tensor&)>();
  trace().clear();
  skips.redispatch(DispatchKeySet{DispatchKey::CPU, DispatchKey::Autograd}, autograd);
  CHECK(trace() == Trace{"CPU [CPU]"});
  trace().clear();

  // A fallthrough on the only key leaves nothing to dispatch on.
  Library only_key(Library::Kind::Fragment, "test_fallthrough");
  only_key.def("nothing(Tensor a) -> Tensor");
  only_key.impl("nothing", DispatchKey::CPU, KernelFunction::makeFallthrough());
  CHECK_THROWS_AS(trace_of_call("test_fallthrough::nothing", filled(1)), tg::NotImplementedError);
}

TEST_CASE("dispatcher: a fallthrough fallback skips its key for every operator without its own kernel") {
  Library lib(Library::Kind::Fragment, "test_fallthrough_fallback");
  lib.def("a(Tensor x) -> Tensor");
  lib.def("b(Tensor x) -> Tensor");
  lib.def("own(Tensor x) -> Tensor");
  lib.impl("a", DispatchKey::CPU, &cpu_kernel);
  lib.impl("b", DispatchKey::CPU, &other_cpu_kernel);
  lib.impl("own", DispatchKey::CPU, &cpu_kernel);
  lib.impl("own", DispatchKey::PrivateUse2, &third_cpu_kernel);

  const Tensor traced = with_keys(DispatchKeySet(DispatchKey::PrivateUse2));
  CHECK_THROWS_AS(trace_of_call("test_fallthrough_fallback::a", traced), tg::NotImplementedError);
  {
    Library fallback(Library::Kind::Impl, "_", DispatchKey::PrivateUse2);
    fallback.fallback(KernelFunction::makeFallthrough());
    CHECK(trace_of_call("test_fallthrough_fallback::a", traced) == Trace{"CPU [CPU]"});
    CHECK(trace_of_call("test_fallthrough_fallback::b", traced) == Trace{"other CPU [CPU]"});
    // An operator's own kernel wins over the fallback.
    CHECK(trace_of_call("test_fallthrough_fallback::own", traced) == Trace{"third CPU [CPU, PrivateUse2]"});
  }
  CHECK_THROWS_AS(trace_of_call("test_fallthrough_fallback::a", traced), tg::NotImplementedError);
}

namespace {
// A boxed fallback that records, then passes the call on below its key.
void tracing_fallback(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  record("fallback " + op.operator_name().str(), ks);
  op.redispatchBoxed(ks.below_highest(), stack);
}
std::tuple<Tensor, Tensor> pair_kernel(const Tensor& a, int64_t n) {
  record("pair CPU", a.key_set());
  return {filled(value(a) + static_cast<float>(n)), filled(value(a) * static_cast<float>(n))};
}
}  // namespace

TEST_CASE("dispatcher: a boxed fallback serves every operator without a kernel for its key, and redispatches") {
  Library lib(Library::Kind::Fragment, "test_boxed_fallback");
  lib.def("unary(Tensor a) -> Tensor");
  lib.def("pair(Tensor a, int n) -> (Tensor, Tensor)");
  lib.def("own(Tensor a) -> Tensor");
  lib.impl("unary", DispatchKey::CPU, &cpu_kernel);
  lib.impl("pair", DispatchKey::CPU, &pair_kernel);
  lib.impl("own", DispatchKey::CPU, &cpu_kernel);
  lib.impl("own", DispatchKey::PrivateUse2, &other_cpu_kernel);

  Library fallback(Library::Kind::Impl, "_", DispatchKey::PrivateUse2);
  fallback.fallback(KernelFunction::makeFromBoxedFunction(&tracing_fallback));

  tg::IncludeDispatchKeyGuard include(DispatchKey::PrivateUse2);
  CHECK(trace_of_call("test_boxed_fallback::unary", filled(1)) ==
        Trace{"fallback test_boxed_fallback::unary [CPU, PrivateUse2]", "CPU [CPU]"});
  CHECK(trace_of_call("test_boxed_fallback::own", filled(1)) == Trace{"other CPU [CPU, PrivateUse2]"});

  // A typed call with a different signature goes through the same boxed fallback.
  trace().clear();
  auto [sum, product] = dispatcher()
                            .findSchemaOrThrow("test_boxed_fallback::pair")
                            .typed<std::tuple<Tensor, Tensor>(const Tensor&, int64_t)>()
                            .call(filled(3), 4);
  CHECK(value(sum) == 7.0f);
  CHECK(value(product) == 12.0f);
  CHECK(trace() == Trace{"fallback test_boxed_fallback::pair [CPU, PrivateUse2]", "pair CPU [CPU]"});

  // And a boxed call.
  trace().clear();
  Stack stack{filled(2), int64_t{5}};
  dispatcher().findSchemaOrThrow("test_boxed_fallback::pair").callBoxed(stack);
  REQUIRE(stack.size() == 2);
  CHECK(value(stack[0].toTensor()) == 7.0f);
  CHECK(value(stack[1].toTensor()) == 10.0f);
  CHECK(trace() == Trace{"fallback test_boxed_fallback::pair [CPU, PrivateUse2]", "pair CPU [CPU]"});
  trace().clear();
}

TEST_CASE("dispatcher: a newer kernel shadows an older one until its registration is removed") {
  Library lib(Library::Kind::Fragment, "test_shadow");
  lib.def("op(Tensor a) -> Tensor");
  lib.impl("op", DispatchKey::CPU, &cpu_kernel);
  CHECK(trace_of_call("test_shadow::op", filled(1)) == Trace{"CPU [CPU]"});

  std::optional<Library> second(std::in_place, Library::Kind::Impl, "test_shadow", DispatchKey::CPU);
  second->impl("op", &other_cpu_kernel);
  CHECK(trace_of_call("test_shadow::op", filled(1)) == Trace{"other CPU [CPU]"});
  std::optional<Library> third(std::in_place, Library::Kind::Impl, "test_shadow", DispatchKey::CPU);
  third->impl("op", &third_cpu_kernel);
  CHECK(trace_of_call("test_shadow::op", filled(1)) == Trace{"third CPU [CPU]"});

  // Removing a shadowed registration changes nothing; removing the newest uncovers the next.
  second.reset();
  CHECK(trace_of_call("test_shadow::op", filled(1)) == Trace{"third CPU [CPU]"});
  third.reset();
  CHECK(trace_of_call("test_shadow::op", filled(1)) == Trace{"CPU [CPU]"});
  CHECK(dispatcher().findSchemaOrThrow("test_shadow::op").registeredKeys() ==
        std::vector<DispatchKey>{DispatchKey::CPU});
}

namespace {
void fallback_one(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  record("fallback one", ks);
  op.redispatchBoxed(ks.below_highest(), stack);
}
void fallback_two(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  record("fallback two", ks);
  op.redispatchBoxed(ks.below_highest(), stack);
}
}  // namespace

TEST_CASE("dispatcher: a newer fallback shadows an older one until it is removed") {
  Library lib(Library::Kind::Fragment, "test_shadow_fallback");
  lib.def("op(Tensor a) -> Tensor");
  lib.impl("op", DispatchKey::CPU, &cpu_kernel);
  const Tensor traced = with_keys(DispatchKeySet(DispatchKey::PrivateUse2));

  Library one(Library::Kind::Impl, "_", DispatchKey::PrivateUse2);
  one.fallback(KernelFunction::makeFromBoxedFunction(&fallback_one));
  {
    Library two(Library::Kind::Fragment, "_");
    two.fallback(DispatchKey::PrivateUse2, KernelFunction::makeFromBoxedFunction(&fallback_two));
    CHECK(trace_of_call("test_shadow_fallback::op", traced) == Trace{"fallback two [CPU, PrivateUse2]", "CPU [CPU]"});
  }
  CHECK(trace_of_call("test_shadow_fallback::op", traced) == Trace{"fallback one [CPU, PrivateUse2]", "CPU [CPU]"});
}

// ---- Registration errors ----

TEST_CASE("dispatcher: defining an operator twice is an error; it can be defined again once undone") {
  std::optional<Library> first(std::in_place, Library::Kind::Fragment, "test_def_twice", std::nullopt, "first.cpp",
                               1);
  first->def("op(Tensor a) -> Tensor");

  Library second(Library::Kind::Fragment, "test_def_twice", std::nullopt, "second.cpp", 2);
  std::string msg = thrown<tg::Error>([&] { second.def("op(Tensor a, Tensor b) -> Tensor"); });
  CAPTURE(msg);
  CHECK(contains(msg, "test_def_twice::op is already defined (first.cpp:1)"));
  CHECK(contains(msg, "second.cpp:2"));
  CHECK_THROWS_AS(first->def("op(Tensor a) -> Tensor"), tg::Error);
  // The first definition is untouched.
  CHECK(dispatcher().findSchemaOrThrow("test_def_twice::op").schema().arguments.size() == 1);

  first.reset();
  CHECK_FALSE(dispatcher().findSchema("test_def_twice::op").has_value());
  second.def("op(Tensor a, Tensor b) -> Tensor");
  CHECK(dispatcher().findSchemaOrThrow("test_def_twice::op").schema().arguments.size() == 2);
}

TEST_CASE("dispatcher: an undone operator forgets its C++ signature") {
  {
    Library lib(Library::Kind::Fragment, "test_signature_undone");
    lib.def("op(Tensor a) -> Tensor");
    dispatcher().findSchemaOrThrow("test_signature_undone::op").typed<Tensor(const Tensor&)>();
  }
  Library lib(Library::Kind::Fragment, "test_signature_undone");
  lib.def("op(Tensor a, int n) -> Tensor");
  auto op = dispatcher().findSchemaOrThrow("test_signature_undone::op").typed<Tensor(const Tensor&, int64_t)>();
  lib.impl("op", DispatchKey::CPU,
           +[](const Tensor& a, int64_t n) { return filled(value(a) + static_cast<float>(n)); });
  CHECK(value(op.call(filled(1), 2)) == 3.0f);
}

TEST_CASE("dispatcher: every kernel and typed call of an operator must share one C++ signature") {
  Library lib(Library::Kind::Fragment, "test_signature");
  lib.def("op(Tensor a) -> Tensor");
  lib.impl("op", DispatchKey::CPU, &cpu_kernel);  // Tensor(const Tensor&), taking the key set
  OperatorHandle op = dispatcher().findSchemaOrThrow("test_signature::op");

  // A leading DispatchKeySet is not part of the signature.
  lib.impl("op", DispatchKey::CUDA, +[](const Tensor& a) { return a; });

  std::string msg = thrown<tg::TypeError>(
      [&] { lib.impl("op", DispatchKey::PrivateUse1, +[](const Tensor& a, int64_t) { return a; }); });
  CAPTURE(msg);
  CHECK(contains(msg, "[dispatcher] test_signature::op"));
  CHECK(contains(msg, "the kernel for PrivateUse1"));
  CHECK(contains(msg, "the kernel for CPU"));
  CHECK(contains(msg, "must share its signature"));
  CHECK_THROWS_AS(lib.impl("op", DispatchKey::PrivateUse1, +[](const Tensor&) { return int64_t{0}; }), tg::Error);
  // The rejected kernels were not registered.
  CHECK(op.registeredKeys() == std::vector<DispatchKey>{DispatchKey::CPU, DispatchKey::CUDA});

  msg = thrown<tg::TypeError>([&] { op.typed<Tensor(const Tensor&, int64_t)>(); });
  CHECK(contains(msg, "a typed call"));
  CHECK_THROWS_AS(op.typed<Tensor(Tensor)>(), tg::TypeError);  // by value is not const Tensor&
  CHECK_THROWS_AS(op.typed<void(const Tensor&)>(), tg::TypeError);
  CHECK_NOTHROW(op.typed<Tensor(const Tensor&)>());

  // A boxed kernel has no C++ signature, so it fits any operator.
  CHECK_NOTHROW(lib.impl("op", DispatchKey::PrivateUse1, KernelFunction::makeFromBoxedFunction(&tracing_fallback)));
}

TEST_CASE("dispatcher: a typed call fixes the signature that later kernels must use") {
  Library lib(Library::Kind::Fragment, "test_signature_first");
  lib.def("op(Tensor a, int n) -> Tensor");
  auto typed = dispatcher().findSchemaOrThrow("test_signature_first::op").typed<Tensor(const Tensor&, int64_t)>();
  std::string msg =
      thrown<tg::TypeError>([&] { lib.impl("op", DispatchKey::CPU, +[](const Tensor& a, double) { return a; }); });
  CAPTURE(msg);
  CHECK(contains(msg, "a typed call"));
  lib.impl("op", DispatchKey::CPU,
           +[](const Tensor& a, int64_t n) { return filled(value(a) * static_cast<float>(n)); });
  CHECK(value(typed.call(filled(2), 3)) == 6.0f);
}

TEST_CASE("dispatcher: misusing a Library is a ValueError that says what is wrong") {
  std::string msg = thrown<tg::ValueError>([] { Library lib(Library::Kind::Impl, "test_misuse"); });
  CHECK(contains(msg, "an Impl library needs a dispatch key"));

  Library impl_lib(Library::Kind::Impl, "test_misuse", DispatchKey::CPU);
  msg = thrown<tg::ValueError>([&] { impl_lib.def("op(Tensor a) -> Tensor"); });
  CHECK(contains(msg, "is an Impl library and cannot define operators"));
  msg = thrown<tg::ValueError>([&] { impl_lib.impl("op", DispatchKey::CUDA, &cuda_kernel); });
  CHECK(contains(msg, "registers kernels for CPU, not for CUDA"));

  Library fragment(Library::Kind::Fragment, "test_misuse");
  msg = thrown<tg::ValueError>([&] { fragment.def("test_elsewhere::op(Tensor a) -> Tensor"); });
  CAPTURE(msg);
  CHECK(contains(msg, "registers 'test_elsewhere::op' outside its namespace 'test_misuse'"));
  msg = thrown<tg::ValueError>([&] { fragment.impl("test_elsewhere::op", DispatchKey::CPU, &cpu_kernel); });
  CHECK(contains(msg, "outside its namespace"));
  msg = thrown<tg::ValueError>(
      [&] { fragment.impl("op", KernelFunction::makeFromUnboxedRuntimeFunction(&cpu_kernel)); });
  CHECK(contains(msg, "needs an Impl library"));
  msg = thrown<tg::ValueError>([&] { fragment.fallback(KernelFunction::makeFallthrough()); });
  CHECK(contains(msg, "needs an Impl library"));
  msg = thrown<tg::ValueError>([&] { fragment.def("op(Tensor a -> Tensor"); });
  CHECK(contains(msg, "[parse_schema]"));

  msg = thrown<tg::ValueError>([&] { fragment.impl("op", DispatchKey::Undefined, &cpu_kernel); });
  CHECK(contains(msg, "cannot register a kernel for test_misuse::op on dispatch key Undefined"));
  msg = thrown<tg::ValueError>(
      [&] { fragment.fallback(DispatchKey::CompositeImplicitAutograd, KernelFunction::makeFallthrough()); });
  CHECK(contains(msg, "fallbacks are registered on runtime keys, got CompositeImplicitAutograd"));

  // Nothing above was registered.
  CHECK_FALSE(dispatcher().findSchema("test_elsewhere::op").has_value());
  CHECK_FALSE(dispatcher().findSchema("test_misuse::op").has_value());
}

// ---- Static registration ----

namespace {
Tensor static_twice_cpu(const Tensor& a) { return filled(2 * value(a)); }
}  // namespace

TG_LIBRARY(test_static, m) { m.def("twice(Tensor a) -> Tensor"); }
TG_LIBRARY_IMPL(test_static, CPU, m) { m.impl("twice", &static_twice_cpu); }

TEST_CASE("dispatcher: TG_LIBRARY and TG_LIBRARY_IMPL register at static initialisation") {
  std::optional<OperatorHandle> op = dispatcher().findSchema("test_static::twice");
  REQUIRE(op.has_value());
  CHECK(op->registeredKeys() == std::vector<DispatchKey>{DispatchKey::CPU});
  CHECK(value(op->typed<Tensor(const Tensor&)>().call(filled(21))) == 42.0f);
  CHECK(contains(op->dumpState(), "test_dispatcher.cpp:"));  // registered where the macro was written
}

// ---- Concurrency ----

namespace {
std::atomic<int64_t> g_second_kernel_calls{0};
Tensor add_kernel_again(const Tensor& a, const Tensor& b) {
  g_second_kernel_calls.fetch_add(1, std::memory_order_relaxed);
  return filled(value(a) + value(b));
}
Tensor unrelated_kernel(const Tensor& a) { return a; }
void unrelated_fallback(const OperatorHandle& op, DispatchKeySet ks, Stack* stack) {
  op.redispatchBoxed(ks.below_highest(), stack);
}
}  // namespace

TEST_CASE("dispatcher: calls on two threads stay correct while a third registers and deregisters") {
  Library lib(Library::Kind::Fragment, "test_concurrent");
  lib.def("add(Tensor a, Tensor b) -> Tensor");
  lib.impl("add", DispatchKey::CPU, &add_kernel);
  OperatorHandle op = dispatcher().findSchemaOrThrow("test_concurrent::add");
  auto typed = op.typed<Tensor(const Tensor&, const Tensor&)>();

  constexpr int kCallsPerThread = 200000;
  constexpr int kMinRegistrationRounds = 50;  // so that calls and registrations overlap
  std::atomic<int> rounds{0};
  std::atomic<bool> registrar_done{false};
  std::atomic<bool> stop{false};

  struct CallerResult {
    int calls = 0;
    int wrong = 0;
    std::string error;
  };
  auto caller = [&](float offset, CallerResult* result) {
    try {
      Tensor a = filled(0);
      const Tensor b = filled(offset);
      for (int i = 0; i < kCallsPerThread || (rounds.load() < kMinRegistrationRounds && !registrar_done.load());
           ++i) {
        const float x = static_cast<float>(i % 65536);
        a.data_ptr<float>()[0] = x;
        Tensor r;
        if (i % 16 == 0) {
          Stack stack{a, b};
          op.callBoxed(stack);
          r = stack.at(0).toTensor();
        } else {
          r = typed.call(a, b);
        }
        if (value(r) != x + offset) ++result->wrong;
        ++result->calls;
      }
    } catch (const std::exception& e) {
      result->error = e.what();
    }
  };

  std::string registrar_error;
  std::thread registrar([&] {
    try {
      const Tensor t = filled(5);
      while (!stop.load()) {
        {
          // Another operator: defined, given kernels, called, and undone.
          Library other(Library::Kind::Fragment, "test_concurrent_other");
          other.def("op(Tensor a) -> Tensor");
          other.impl("op", DispatchKey::CPU, &unrelated_kernel);
          other.impl("op", DispatchKey::CompositeImplicitAutograd, &unrelated_kernel);
          // Fallbacks on keys the callers' tensors do not carry.
          other.fallback(DispatchKey::PrivateUse1, KernelFunction::makeFromBoxedFunction(&unrelated_fallback));
          other.fallback(DispatchKey::BackendSelect, KernelFunction::makeFallthrough());
          // A second kernel on the callers' operator and key that computes the same thing.
          Library same(Library::Kind::Impl, "test_concurrent", DispatchKey::CPU);
          same.impl("add", &add_kernel_again);
          auto unrelated = dispatcher().findSchemaOrThrow("test_concurrent_other::op").typed<Tensor(const Tensor&)>();
          if (!unrelated.call(t).is_same(t)) throw std::runtime_error("the unrelated operator returned a wrong result");
        }
        rounds.fetch_add(1);
      }
    } catch (const std::exception& e) {
      registrar_error = e.what();
    }
    registrar_done.store(true);
  });

  CallerResult first, second;
  std::thread caller1(caller, 1.0f, &first);
  std::thread caller2(caller, 1000.0f, &second);
  caller1.join();
  caller2.join();
  stop.store(true);
  registrar.join();

  CHECK(first.error == "");
  CHECK(second.error == "");
  CHECK(registrar_error == "");
  CHECK(first.calls >= kCallsPerThread);
  CHECK(second.calls >= kCallsPerThread);
  CHECK(first.wrong == 0);
  CHECK(second.wrong == 0);
  CHECK(rounds.load() >= kMinRegistrationRounds);

  // Every registration of the third thread was undone.
  CHECK(op.registeredKeys() == std::vector<DispatchKey>{DispatchKey::CPU});
  CHECK_FALSE(dispatcher().findSchema("test_concurrent_other::op").has_value());
  const int64_t before = g_second_kernel_calls.load();
  CHECK(value(typed.call(filled(1), filled(2))) == 3.0f);
  CHECK(g_second_kernel_calls.load() == before);
}
