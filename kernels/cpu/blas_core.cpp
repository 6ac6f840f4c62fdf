#include "cpu/blas_core.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <string_view>

namespace tg::cpu {

// Note [OpenBLAS on newer CPUs]
// A DYNAMIC_ARCH OpenBLAS picks its kernels from the CPU model at load time. A model newer than
// the library (Debian 12's 0.3.21 on a 2023 Xeon, family 6 model 207) is not in its table, and
// it falls back to its generic Prescott (SSE3) kernels: float products then run at a fifth of
// the speed the CPU gives with the AVX-512 ones (25 against 135 GFLOP/s for a 256³ sgemm on one
// core here). OpenBLAS's own remedy is the OPENBLAS_CORETYPE variable, read when it
// initialises. So at tensorgen's load (after OpenBLAS's, which it links), when the user has not
// set that variable and OpenBLAS runs one of its pre-AVX2 kernel sets on a CPU that has AVX2 or
// AVX-512, tensorgen sets it, re-runs OpenBLAS's dynamic initialisation, and unsets it again.
// The calls are looked up at run time, so another BLAS (or a static OpenBLAS) is left alone.
// Valgrind's CPU hides AVX-512, so under callgrind the choice is OpenBLAS's own. Right after
// this choice tensorgen sets OpenBLAS to one thread and runs products on its own threads
// (Note [One thread pool], blas_gemm.cpp).
namespace {

using CoreNameFn = char* (*)();
using InitFn = void (*)();

CoreNameFn core_name_function() {
  return reinterpret_cast<CoreNameFn>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// OpenBLAS's kernel sets older than AVX2: what it falls back to on a CPU it does not know.
bool is_pre_avx2_core(std::string_view name) {
  constexpr std::array<std::string_view, 10> kOld = {"prescott", "core2", "penryn", "dunnington", "nehalem",
                                                     "atom", "katmai", "coppermine", "northwood", "banias"};
  return std::any_of(kOld.begin(), kOld.end(), [&](std::string_view old) { return equals_ignoring_case(name, old); });
}

// The newest kernel set this CPU (and its operating system: GCC's check reads XCR0) runs.
const char* best_core_for_this_cpu() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return nullptr;
}

std::string select_core() {
  const CoreNameFn core_name = core_name_function();
  if (core_name == nullptr) return "not OpenBLAS";
  const std::string before = core_name();
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return "kept " + before + " (OPENBLAS_CORETYPE is set)";
  const auto quit = reinterpret_cast<InitFn>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit"));
  const auto init = reinterpret_cast<InitFn>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init"));
  const char* best = best_core_for_this_cpu();
  if (quit == nullptr || init == nullptr || best == nullptr || !is_pre_avx2_core(before)) return "kept " + before;
  setenv("OPENBLAS_CORETYPE", best, 1);
  quit();
  init();
  unsetenv("OPENBLAS_CORETYPE");  // child processes choose for themselves
  return "upgraded from " + before + " to " + core_name();
}

}  // namespace

const std::string& blas_core_selection() {
  static const std::string selection = select_core();
  return selection;
}

std::string blas_core_name() {
  blas_core_selection();
  const CoreNameFn core_name = core_name_function();
  return core_name == nullptr ? std::string() : std::string(core_name());
}

namespace {
// At load, before any product runs (a function-local static, so the order among this
// library's initialisers does not matter).
[[maybe_unused]] const bool selected_at_load = !blas_core_selection().empty();
}  // namespace

}  // namespace tg::cpu
