// The threads that parallel_for (cpu/parallel.h) and the split matrix products (cpu/blas_gemm.h)
// run on: one process-wide pool, whose caller works too and never waits for a thread that has
// not started. See Note [A pool that does not wait for sleepers] (thread_pool.cpp).
#pragma once

#include <cstdint>

namespace tg::cpu {

// task(context, i) for one index i of a job.
using PoolTask = void (*)(const void* context, int64_t index);

// Runs task(context, i) once for every i in [0, tasks), on the calling thread and up to
// threads - 1 pool threads, and returns when every one has run. Which thread runs which index
// is not fixed, so a task must depend on its index only. Tasks must not throw. A call made
// while another thread's job is running, or from inside a task, runs every index on the
// calling thread, in order.
void run_tasks(int64_t tasks, int threads, PoolTask task, const void* context);

// True on a thread that is running a task of run_tasks: a parallel_for there runs on that
// thread alone, as OpenMP does not start a nested team.
bool in_parallel_region();

// How many pool threads exist now (they are started on first use, as many as the largest
// job asked for, and kept). For tests and bug reports.
int pool_threads();

}  // namespace tg::cpu
