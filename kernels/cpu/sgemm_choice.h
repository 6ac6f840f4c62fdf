// Which code runs float matrix products in cpu::blas_gemm: tensorgen's own AVX-512 sgemm
// (cpu/sgemm_avx512.h) or OpenBLAS's. The environment variable TG_CPU_GEMM=tensorgen|openblas
// chooses, for comparison and debugging; see Note [Choosing the float product] (sgemm_choice.cpp).
#pragma once

#include <cstdint>

namespace tg::cpu {

enum class CpuGemm { kTensorgen, kOpenblas };

// TG_CPU_GEMM's text: "tensorgen" or "openblas"; unset (nullptr) means tensorgen. Anything
// else is a tg::ValueError naming the variable and the accepted values.
CpuGemm parse_cpu_gemm(const char* text);

// Whether this CPU runs tensorgen's sgemm: AVX-512F, at the vector level the kernels run
// (vec::capability(), which TG_CPU_CAPABILITY caps).
bool tensorgen_sgemm_supported();

// The code float products run now: the requested one (TG_CPU_GEMM, read at the first product,
// or set_cpu_gemm), except that tensorgen's needs tensorgen_sgemm_supported(), else OpenBLAS
// runs (a plain loop in a build without BLAS).
CpuGemm cpu_gemm();

// Requests `choice` from now on, whatever TG_CPU_GEMM says (tests and benchmarks compare both
// in one process). Not to be called while products run on other threads.
void set_cpu_gemm(CpuGemm choice);

// "tensorgen" or "openblas".
const char* cpu_gemm_name(CpuGemm choice);

// How many products started on this thread have run on tensorgen's sgemm (per thread, so that
// products on several threads do not share a counter's cache line), and blas_gemm's count of
// one more. For tests, which check that the choice is obeyed.
int64_t tensorgen_sgemm_products();
void count_tensorgen_sgemm_product();

}  // namespace tg::cpu
