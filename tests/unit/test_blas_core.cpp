// Tests of Note [OpenBLAS on newer CPUs] (kernels/cpu/blas_core.cpp): on a CPU with AVX2 or
// AVX-512, the OpenBLAS that tensorgen links runs kernels for it, not its SSE3 fallback.
#include <cstdlib>
#include <string>

#include "cpu/blas_core.h"
#include "ops_test_helpers.h"

namespace {

bool cpu_has_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd");
}

bool cpu_has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

// The test needs OpenBLAS, a CPU with AVX2, and OpenBLAS left to choose (no OPENBLAS_CORETYPE).
bool openblas_chooses_here() {
  return !tg::cpu::blas_core_name().empty() && cpu_has_avx2() && std::getenv("OPENBLAS_CORETYPE") == nullptr;
}

}  // namespace

TEST_CASE("blas core: OpenBLAS runs AVX2 or AVX-512 kernels on a CPU that has them (skipped without OpenBLAS, "
          "AVX2, or with OPENBLAS_CORETYPE set)" *
          doctest::skip(!openblas_chooses_here())) {
  const std::string core = tg::cpu::blas_core_name();
  INFO("OpenBLAS core: ", core, "; tensorgen's selection: ", tg::cpu::blas_core_selection());
  for (const char* old : {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom"}) CHECK(core != old);
  if (cpu_has_avx512()) {
    // OpenBLAS's AVX-512 sets: SkylakeX and the later ones it knows by name.
    CHECK((core == "SkylakeX" || core == "Cooperlake" || core == "SapphireRapids"));
  }
  // Products still compute: a 64x64 sgemm of small integers is exact in float.
  ops_test::Values a_values, b_values;
  for (int i = 0; i < 64 * 64; ++i) {
    a_values.push_back(i % 7 - 3);
    b_values.push_back(i % 5 - 2);
  }
  const ops_test::Values c = ops_test::values(
      tg::mm(ops_test::make(a_values, {64, 64}), ops_test::make(b_values, {64, 64})));
  for (int i = 0; i < 64; i += 9) {
    for (int j = 0; j < 64; j += 7) {
      double expected = 0;
      for (int k = 0; k < 64; ++k) expected += a_values[i * 64 + k] * b_values[k * 64 + j];
      CHECK(c[i * 64 + j] == expected);
    }
  }
}

TEST_CASE("blas core: the selection says what it did") {
  const std::string& selection = tg::cpu::blas_core_selection();
  const bool known = selection == "not OpenBLAS" || selection.rfind("kept ", 0) == 0 ||
                     selection.rfind("upgraded from ", 0) == 0;
  CHECK_MESSAGE(known, selection);
  if (tg::cpu::blas_core_name().empty()) CHECK(selection == "not OpenBLAS");
}
