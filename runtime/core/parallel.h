// Intra-op parallelism: how many threads a CPU kernel may use, as LibTorch's
// at::set_num_threads / at::get_num_threads. Kernels split work with cpu::parallel_for
// (kernels/cpu/parallel.h). Without OpenMP the library runs on one thread and these say 1.
#pragma once

namespace tg {

// n >= 1, else tg::ValueError. Applies to the calling thread's later kernels, as OpenMP's
// omp_set_num_threads does, and to OpenBLAS's matrix products (process-wide: OpenBLAS has
// one thread count).
void set_num_threads(int n);
int get_num_threads();

}  // namespace tg
