// Tests for DispatchKey, DispatchKeySet and the thread-local include/exclude sets: names
// round-trip, priority is the declaration order, set algebra is exact, and the RAII guards
// nest, restore what they found (even on exceptions) and are invisible to other threads.
#include <doctest/doctest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <tensorgen/tensorgen.h>

namespace {

using tg::DispatchKey;
using tg::DispatchKeySet;

// Every runtime key, in declaration (= priority) order, from the one source of truth.
const std::vector<DispatchKey> kRuntimeKeys = {
#define TG_LIST_KEY(name) DispatchKey::name,
    TG_FORALL_RUNTIME_DISPATCH_KEYS(TG_LIST_KEY)
#undef TG_LIST_KEY
};
const std::vector<DispatchKey> kAliasKeys = {
#define TG_LIST_KEY(name) DispatchKey::name,
    TG_FORALL_ALIAS_DISPATCH_KEYS(TG_LIST_KEY)
#undef TG_LIST_KEY
};

std::string printed(DispatchKeySet ks) {
  std::ostringstream out;
  out << ks;
  return out.str();
}

std::string printed(DispatchKey k) {
  std::ostringstream out;
  out << k;
  return out.str();
}

std::vector<DispatchKey> keys_of(DispatchKeySet ks) {
  std::vector<DispatchKey> keys;
  ks.for_each([&](DispatchKey k) { keys.push_back(k); });
  return keys;
}

// What every thread starts with: BackendSelect included (factories reach their BackendSelect
// kernel; every other operator falls through it), nothing excluded.
const DispatchKeySet kInitiallyIncluded(DispatchKey::BackendSelect);

// Precondition for the TLS tests: nothing else on this thread left a guard behind.
void require_clean_tls() {
  REQUIRE(tg::local_dispatch_key_set().included == kInitiallyIncluded);
  REQUIRE(tg::local_dispatch_key_set().excluded.empty());
}

}  // namespace

TEST_CASE("dispatch_keys: every key's name round-trips through parse_dispatch_key") {
  CHECK(kRuntimeKeys.size() == static_cast<size_t>(tg::kNumRuntimeKeys - 1));  // slot 0 is Undefined
  for (DispatchKey k : kRuntimeKeys) {
    CAPTURE(tg::to_string(k));
    CHECK(tg::parse_dispatch_key(tg::to_string(k)).value_or(DispatchKey::Undefined) == k);
    CHECK(printed(k) == tg::to_string(k));
  }
  for (DispatchKey k : kAliasKeys) {
    CAPTURE(tg::to_string(k));
    CHECK(tg::parse_dispatch_key(tg::to_string(k)).value_or(DispatchKey::Undefined) == k);
  }
  CHECK(tg::to_string(DispatchKey::CPU) == "CPU");
  CHECK(tg::to_string(DispatchKey::Tracer) == "Tracer");
  CHECK(tg::to_string(DispatchKey::CompositeImplicitAutograd) == "CompositeImplicitAutograd");
  CHECK(tg::to_string(DispatchKey::Undefined) == "Undefined");
  CHECK(tg::to_string(DispatchKey::EndOfRuntimeKeys) == "InvalidDispatchKey");

  CHECK_FALSE(tg::parse_dispatch_key("cpu").has_value());  // names are case-sensitive
  CHECK_FALSE(tg::parse_dispatch_key("").has_value());
  CHECK_FALSE(tg::parse_dispatch_key("Undefined").has_value());  // not a key one registers on
  CHECK_FALSE(tg::parse_dispatch_key("CPU ").has_value());
  CHECK_FALSE(tg::parse_dispatch_key("Autocast").has_value());
}

TEST_CASE("dispatch_keys: runtime keys are distinct from alias keys and ordered by priority") {
  for (DispatchKey k : kRuntimeKeys) {
    CAPTURE(tg::to_string(k));
    CHECK(tg::is_runtime_key(k));
    CHECK_FALSE(tg::is_alias_key(k));
    CHECK(static_cast<int>(k) < tg::kNumRuntimeKeys);
  }
  for (DispatchKey k : kAliasKeys) {
    CAPTURE(tg::to_string(k));
    CHECK(tg::is_alias_key(k));
    CHECK_FALSE(tg::is_runtime_key(k));
    CHECK_FALSE(tg::is_backend_key(k));
  }
  CHECK_FALSE(tg::is_runtime_key(DispatchKey::Undefined));
  CHECK_FALSE(tg::is_alias_key(DispatchKey::Undefined));
  CHECK_FALSE(tg::is_runtime_key(DispatchKey::EndOfRuntimeKeys));
  CHECK_FALSE(tg::is_alias_key(DispatchKey::EndOfRuntimeKeys));
  CHECK_FALSE(tg::is_alias_key(DispatchKey::EndOfAliasKeys));

  CHECK(tg::is_backend_key(DispatchKey::CPU));
  CHECK(tg::is_backend_key(DispatchKey::CUDA));
  CHECK(tg::is_backend_key(DispatchKey::PrivateUse1));
  CHECK_FALSE(tg::is_backend_key(DispatchKey::Autograd));
  CHECK_FALSE(tg::is_backend_key(DispatchKey::BackendSelect));

  // Priority: backends < BackendSelect < Tracer < Autograd < PrivateUse2.
  CHECK(DispatchKey::CPU < DispatchKey::BackendSelect);
  CHECK(DispatchKey::PrivateUse1 < DispatchKey::BackendSelect);
  CHECK(DispatchKey::BackendSelect < DispatchKey::Tracer);
  CHECK(DispatchKey::Tracer < DispatchKey::Autograd);
  CHECK(DispatchKey::Autograd < DispatchKey::PrivateUse2);
}

TEST_CASE("dispatch_keys: DispatchKeySet add, remove, has and empty") {
  DispatchKeySet empty;
  CHECK(empty.empty());
  CHECK(empty.raw() == 0);
  CHECK(DispatchKeySet(DispatchKey::Undefined).empty());  // Undefined is never a member
  CHECK(DispatchKeySet{DispatchKey::Undefined, DispatchKey::CPU} == DispatchKeySet(DispatchKey::CPU));
  for (DispatchKey k : kRuntimeKeys) CHECK_FALSE(empty.has(k));

  DispatchKeySet cpu(DispatchKey::CPU);
  CHECK_FALSE(cpu.empty());
  CHECK(cpu.has(DispatchKey::CPU));
  CHECK_FALSE(cpu.has(DispatchKey::CUDA));
  CHECK(cpu.raw() == (uint64_t(1) << static_cast<int>(DispatchKey::CPU)));

  DispatchKeySet both = cpu.add(DispatchKey::Autograd);
  CHECK(both.has(DispatchKey::CPU));
  CHECK(both.has(DispatchKey::Autograd));
  CHECK_FALSE(cpu.has(DispatchKey::Autograd));  // add returns a new set; the old one is unchanged
  CHECK(both.add(DispatchKey::Autograd) == both);  // adding a member changes nothing

  DispatchKeySet only_autograd = both.remove(DispatchKey::CPU);
  CHECK(only_autograd == DispatchKeySet(DispatchKey::Autograd));
  CHECK(only_autograd.remove(DispatchKey::CUDA) == only_autograd);  // removing a non-member changes nothing
  CHECK(only_autograd.remove(DispatchKey::Autograd).empty());
  CHECK(both != only_autograd);

  constexpr DispatchKeySet compile_time = DispatchKeySet{DispatchKey::CPU, DispatchKey::Autograd};
  static_assert(compile_time.has(DispatchKey::Autograd) && !compile_time.has(DispatchKey::CUDA));
  CHECK(compile_time == both);
}

TEST_CASE("dispatch_keys: DispatchKeySet union, intersection and difference") {
  const DispatchKeySet a{DispatchKey::CPU, DispatchKey::CUDA, DispatchKey::Autograd};
  const DispatchKeySet b{DispatchKey::CUDA, DispatchKey::PrivateUse2};

  CHECK((a | b) ==
        DispatchKeySet{DispatchKey::CPU, DispatchKey::CUDA, DispatchKey::Autograd, DispatchKey::PrivateUse2});
  CHECK((a & b) == DispatchKeySet(DispatchKey::CUDA));
  CHECK((a - b) == DispatchKeySet{DispatchKey::CPU, DispatchKey::Autograd});
  CHECK((b - a) == DispatchKeySet(DispatchKey::PrivateUse2));
  CHECK((a - a).empty());
  CHECK((a & DispatchKeySet()).empty());
  CHECK((a | DispatchKeySet()) == a);

  DispatchKeySet accumulated;
  accumulated |= DispatchKeySet(DispatchKey::CPU);
  accumulated |= b;
  CHECK(accumulated == DispatchKeySet{DispatchKey::CPU, DispatchKey::CUDA, DispatchKey::PrivateUse2});
}

TEST_CASE("dispatch_keys: highest_priority_key, below and below_highest") {
  CHECK(DispatchKeySet().highest_priority_key() == DispatchKey::Undefined);
  CHECK(DispatchKeySet(DispatchKey::CPU).highest_priority_key() == DispatchKey::CPU);
  CHECK(DispatchKeySet{DispatchKey::CPU, DispatchKey::Autograd}.highest_priority_key() == DispatchKey::Autograd);
  CHECK(DispatchKeySet{DispatchKey::Autograd, DispatchKey::PrivateUse2}.highest_priority_key() ==
        DispatchKey::PrivateUse2);
  CHECK(DispatchKeySet{DispatchKey::CUDA, DispatchKey::Tracer}.highest_priority_key() == DispatchKey::Tracer);
  // Each key is the highest of the set of it and everything below it.
  for (DispatchKey k : kRuntimeKeys) {
    CAPTURE(tg::to_string(k));
    CHECK(DispatchKeySet::below(k).add(k).highest_priority_key() == k);
  }

  CHECK(DispatchKeySet::below(DispatchKey::CPU).empty());  // nothing below the lowest key
  CHECK(DispatchKeySet::below(DispatchKey::CUDA) == DispatchKeySet(DispatchKey::CPU));
  CHECK(DispatchKeySet::below(DispatchKey::Autograd) ==
        DispatchKeySet{DispatchKey::CPU, DispatchKey::CUDA, DispatchKey::PrivateUse1, DispatchKey::BackendSelect,
                       DispatchKey::Tracer});
  CHECK_FALSE(DispatchKeySet::below(DispatchKey::Autograd).has(DispatchKey::Autograd));
  CHECK_FALSE(DispatchKeySet::below(DispatchKey::Autograd).has(DispatchKey::PrivateUse2));
  CHECK(DispatchKeySet::below(DispatchKey::Undefined).empty());

  const DispatchKeySet call{DispatchKey::CPU, DispatchKey::Tracer, DispatchKey::Autograd};
  CHECK(call.below_highest() == DispatchKeySet{DispatchKey::CPU, DispatchKey::Tracer});
  CHECK(call.below_highest().below_highest() == DispatchKeySet(DispatchKey::CPU));
  CHECK(call.below_highest().below_highest().below_highest().empty());
  CHECK(DispatchKeySet().below_highest().empty());
}

TEST_CASE("dispatch_keys: full() holds every runtime key, and for_each visits lowest first") {
  const DispatchKeySet full = DispatchKeySet::full();
  CHECK(keys_of(full) == kRuntimeKeys);
  CHECK_FALSE(full.has(DispatchKey::Undefined));
  CHECK(full.highest_priority_key() == kRuntimeKeys.back());

  CHECK(keys_of(DispatchKeySet()).empty());
  const std::vector<DispatchKey> expected = {DispatchKey::CPU, DispatchKey::Tracer, DispatchKey::Autograd,
                                             DispatchKey::PrivateUse2};
  // The order of construction does not matter; iteration is by priority.
  CHECK(keys_of(DispatchKeySet{DispatchKey::PrivateUse2, DispatchKey::Autograd, DispatchKey::CPU,
                               DispatchKey::Tracer}) == expected);

  CHECK(tg::kAutogradRelatedKeys == DispatchKeySet(DispatchKey::Autograd));
  CHECK(tg::kBackendKeys == DispatchKeySet{DispatchKey::CPU, DispatchKey::CUDA, DispatchKey::PrivateUse1});
}

TEST_CASE("dispatch_keys: printing a key set lists its keys in priority order") {
  CHECK(printed(DispatchKeySet()) == "[]");
  CHECK(printed(DispatchKeySet(DispatchKey::CPU)) == "[CPU]");
  CHECK(printed(DispatchKeySet{DispatchKey::Autograd, DispatchKey::CPU}) == "[CPU, Autograd]");
  CHECK(printed(DispatchKeySet::full()) ==
        "[CPU, CUDA, PrivateUse1, BackendSelect, Tracer, Autograd, FuncTorchBatched, PrivateUse2]");
}

TEST_CASE("dispatch_keys: include and exclude guards nest and restore the previous sets") {
  require_clean_tls();
  auto& tls = tg::local_dispatch_key_set();
  {
    tg::IncludeDispatchKeyGuard outer(DispatchKey::PrivateUse2);
    CHECK(tls.included == kInitiallyIncluded.add(DispatchKey::PrivateUse2));
    {
      tg::IncludeDispatchKeyGuard inner(DispatchKeySet{DispatchKey::PrivateUse1, DispatchKey::PrivateUse2});
      CHECK(tls.included ==
            (kInitiallyIncluded | DispatchKeySet{DispatchKey::PrivateUse1, DispatchKey::PrivateUse2}));
      {
        tg::ExcludeDispatchKeyGuard exclude(DispatchKey::Autograd);
        CHECK(tls.excluded == DispatchKeySet(DispatchKey::Autograd));
        CHECK(tls.included ==
              (kInitiallyIncluded | DispatchKeySet{DispatchKey::PrivateUse1, DispatchKey::PrivateUse2}));
        {
          tg::ExcludeDispatchKeyGuard exclude_more(DispatchKeySet{DispatchKey::CUDA, DispatchKey::Autograd});
          CHECK(tls.excluded == DispatchKeySet{DispatchKey::CUDA, DispatchKey::Autograd});
        }
        // The inner guard also named Autograd; the outer one still holds it excluded.
        CHECK(tls.excluded == DispatchKeySet(DispatchKey::Autograd));
      }
      CHECK(tls.excluded.empty());
    }
    // The inner include guard also named PrivateUse2: restoring keeps the outer guard's key.
    CHECK(tls.included == kInitiallyIncluded.add(DispatchKey::PrivateUse2));
  }
  CHECK(tls.included == kInitiallyIncluded);
  CHECK(tls.excluded.empty());
  {
    // Excluding a key that is included by default hides it; the guard gives it back.
    tg::ExcludeDispatchKeyGuard exclude(DispatchKey::BackendSelect);
    CHECK(tls.included == kInitiallyIncluded);
    CHECK(tls.excluded == DispatchKeySet(DispatchKey::BackendSelect));
  }
  CHECK(tls.excluded.empty());
}

TEST_CASE("dispatch_keys: guards restore the thread-local sets when an exception unwinds them") {
  require_clean_tls();
  CHECK_THROWS_AS(
      [] {
        tg::IncludeDispatchKeyGuard include(DispatchKey::PrivateUse2);
        tg::ExcludeDispatchKeyGuard exclude(DispatchKey::Autograd);
        throw std::runtime_error("unwind");
      }(),
      std::runtime_error);
  CHECK(tg::local_dispatch_key_set().included == kInitiallyIncluded);
  CHECK(tg::local_dispatch_key_set().excluded.empty());
}

TEST_CASE("dispatch_keys: the thread-local sets are per thread") {
  require_clean_tls();
  tg::IncludeDispatchKeyGuard include(DispatchKey::PrivateUse2);
  tg::ExcludeDispatchKeyGuard exclude(DispatchKey::Autograd);

  tg::LocalDispatchKeySet seen_by_other_thread{DispatchKeySet::full(), DispatchKeySet::full()};
  tg::LocalDispatchKeySet inside_other_guard;
  std::thread other([&] {
    seen_by_other_thread = tg::local_dispatch_key_set();
    tg::IncludeDispatchKeyGuard other_include(DispatchKey::PrivateUse1);
    inside_other_guard = tg::local_dispatch_key_set();
  });
  other.join();

  // A new thread starts from the initial sets, not from this thread's.
  CHECK(seen_by_other_thread.included == kInitiallyIncluded);
  CHECK(seen_by_other_thread.excluded.empty());
  CHECK(inside_other_guard.included == kInitiallyIncluded.add(DispatchKey::PrivateUse1));
  // The other thread's guard did not touch this thread's sets.
  CHECK(tg::local_dispatch_key_set().included == kInitiallyIncluded.add(DispatchKey::PrivateUse2));
  CHECK(tg::local_dispatch_key_set().excluded == DispatchKeySet(DispatchKey::Autograd));
}

TEST_CASE("dispatch_keys: AutoDispatchBelowAutograd excludes Autograd") {
  require_clean_tls();
  {
    tg::ExcludeDispatchKeyGuard already(DispatchKey::PrivateUse2);
    {
      tg::AutoDispatchBelowAutograd below;
      CHECK(tg::local_dispatch_key_set().excluded ==
            DispatchKeySet{DispatchKey::Autograd, DispatchKey::PrivateUse2});
      CHECK(tg::local_dispatch_key_set().included == kInitiallyIncluded);
    }
    CHECK(tg::local_dispatch_key_set().excluded == DispatchKeySet(DispatchKey::PrivateUse2));
  }
  CHECK(tg::local_dispatch_key_set().excluded.empty());
}
