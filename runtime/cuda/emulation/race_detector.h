// The shared-memory race detector of the emulated device (Note [Shared-memory races]): two
// threads of a block access the same byte of shared memory, at least one of them writes, and
// no __syncthreads (or, within a warp, no warp primitive) separates the two accesses.
// Invariants: the kernel units are compiled with GCC's ThreadSanitizer instrumentation
// (-fsanitize=thread, no TSan runtime linked), whose __tsan_* calls land here; an access
// counts only while a kernel thread runs on this host thread and only inside shared memory
// (dynamic: the block's buffer; static __shared__: this host thread's TLS blocks); the first
// race of a block fails the launch with a message naming the kernel, block, address and both
// threads. Threading: all state is per host thread (a launch runs on the thread that made it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda/emulation/runtime_api.h"

namespace tg::cuda::emu {

// Whether launches check for races: TG_EMU_RACECHECK=0 turns the check off (default on).
bool race_check_enabled();

// The scheduler's calls (block_scheduler.cpp).
void race_begin_block(dim3 block_dim, const void* dynamic_shared, size_t dynamic_bytes);
void race_end_block();
void race_set_thread(int linear);    // the thread that runs now; -1: the scheduler
void race_barrier();                 // a __syncthreads opened
void race_warp_sync(int warp, unsigned int mask);  // a warp primitive completed for `mask`
// The first race of the block, or an empty string.
const std::string& race_report();

// Shared-memory accesses checked by this process so far (to show that the check ran).
uint64_t race_checked_accesses();

}  // namespace tg::cuda::emu
