// Intra-op parallelism: how many threads a CPU kernel may use, as LibTorch's
// at::set_num_threads / at::get_num_threads. Kernels split work with cpu::parallel_for
// (kernels/cpu/parallel.h). Without OpenMP the library runs on one thread and these say 1.
#pragma once

namespace tg {

// n >= 1, else tg::ValueError. Applies to the calling thread's later kernels, as OpenMP's
// omp_set_num_threads does, matrix products included: they run on the same OpenMP threads,
// OpenBLAS itself staying at one thread (Note [One thread pool], kernels/cpu/blas_gemm.cpp).
void set_num_threads(int n);
int get_num_threads();

}  // namespace tg
