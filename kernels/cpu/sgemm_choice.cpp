#include "cpu/sgemm_choice.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "core/error.h"
#include "cpu/vec.h"

namespace tg::cpu {

// Note [Choosing the float product]
// Float products run tensorgen's own sgemm (Note [A matrix product of our own],
// sgemm_avx512.cpp) on a CPU with AVX-512 and OpenBLAS's elsewhere, as LibTorch runs its own
// kernels (oneDNN's) where it has them and MKL otherwise. TG_CPU_GEMM=openblas runs OpenBLAS
// on every CPU, to compare the two or to rule ours out when a result looks wrong; the
// variable is read once, at the first product (not at load: a malformed value is then a
// tg::ValueError from that product, which a caller can catch, not a failure to load).
// TG_CPU_CAPABILITY=avx2 or baseline (Note [Vector widths]) also turns ours off, as it caps
// every AVX-512 kernel, so the test runs under those levels cover the OpenBLAS path. Double
// stays on OpenBLAS.
namespace {

constexpr int kUnread = -1;
std::atomic<int> requested{kUnread};
thread_local int64_t products = 0;

}  // namespace

CpuGemm parse_cpu_gemm(const char* text) {
  if (text == nullptr || std::strcmp(text, "tensorgen") == 0) return CpuGemm::kTensorgen;
  TG_CHECK_VALUE(std::strcmp(text, "openblas") == 0,
                 "[cpu_gemm] TG_CPU_GEMM must be 'tensorgen' or 'openblas', got '", text, "'");
  return CpuGemm::kOpenblas;
}

bool tensorgen_sgemm_supported() {
  return vec::capability() >= vec::Capability::kAvx512;  // which includes AVX-512F
}

CpuGemm cpu_gemm() {
  int choice = requested.load(std::memory_order_relaxed);
  if (choice == kUnread) {
    choice = static_cast<int>(parse_cpu_gemm(std::getenv("TG_CPU_GEMM")));
    requested.store(choice, std::memory_order_relaxed);
  }
  const auto chosen = static_cast<CpuGemm>(choice);
  return chosen == CpuGemm::kTensorgen && !tensorgen_sgemm_supported() ? CpuGemm::kOpenblas : chosen;
}

void set_cpu_gemm(CpuGemm choice) { requested.store(static_cast<int>(choice), std::memory_order_relaxed); }

const char* cpu_gemm_name(CpuGemm choice) { return choice == CpuGemm::kTensorgen ? "tensorgen" : "openblas"; }

int64_t tensorgen_sgemm_products() { return products; }

void count_tensorgen_sgemm_product() { ++products; }

}  // namespace tg::cpu
