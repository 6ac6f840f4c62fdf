// The shared-memory race detector (race_detector.h) and the ThreadSanitizer entry points that
// the instrumented kernel units call. See Note [Shared-memory races].
#include "cuda/emulation/race_detector.h"

#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// Note [Shared-memory races]
// The kernel units (kernels/cuda/*.cu as emulated_*.cpp, and the emulation's test kernels) are
// compiled with -fsanitize=thread but linked without the TSan runtime: GCC then calls
// __tsan_readN/__tsan_writeN before every memory access it cannot prove thread-local, and the
// functions below receive them. Outside a kernel thread, and outside shared memory, they
// return at once. Inside shared memory each byte keeps its last write and up to two reads of
// the current barrier interval (the epoch, which __syncthreads advances for the block; each
// warp primitive advances its warp's epoch for the lanes of that warp). An access races with a
// recorded one when the threads differ, at least one writes, the epochs are equal, and, for two
// lanes of one warp, no warp primitive lies between. The first race fails the launch
// (cudaErrorLaunchFailure, like the deadlock report), so every emulated test run shows the
// real kernels race-free. Atomics (__tsan_atomic*) are performed and never race. Kernels run
// as fibers that switch only at barriers and warp primitives, so the detector sees each
// interleaving-independent conflict, not just the ones that happened to corrupt a value.

namespace tg::cuda::emu {

namespace {

struct Access {
  int32_t thread = -1;
  uint32_t epoch = 0;
  uint32_t warp_epoch = 0;
};

struct Cell {
  uint64_t block = 0;  // the block run the entries belong to; older entries count as empty
  Access write;
  Access read[2];
};

// What every instrumented access reads first: trivially constructed and initial-exec, so that
// an access outside a kernel thread or outside shared memory costs a few loads (tensorgen's
// library is loaded with the program, never by dlopen, so its TLS is static).
struct FastState {
  int thread;  // linear index of the running kernel thread, -1 outside one
  uintptr_t dynamic_lo, dynamic_hi, tls_lo, tls_hi;
};
thread_local FastState fast __attribute__((tls_model("initial-exec"))) = {-1, 0, 0, 0, 0};

struct RaceState {
  int thread = -1;  // linear index of the running kernel thread, -1 outside one
  dim3 block_dim{1, 1, 1};
  uint32_t epoch = 1;
  std::vector<uint32_t> warp_epochs;
  uintptr_t dynamic_lo = 0, dynamic_hi = 0;
  uintptr_t tls_lo = 0, tls_hi = 0;
  bool tls_known = false;
  // One cell per byte of shared memory: the TLS range first, then the dynamic range. Cells
  // of an earlier block are recognised by `block`, so nothing is cleared between blocks.
  std::vector<Cell> cells;
  uint64_t block = 0;
  std::string report;
};

thread_local RaceState state;
std::atomic<uint64_t> checked{0};

bool read_enabled() {
  const char* value = std::getenv("TG_EMU_RACECHECK");
  return value == nullptr || std::strcmp(value, "0") != 0;
}

int tls_range(struct dl_phdr_info* info, size_t, void* data) {
  auto* s = static_cast<RaceState*>(data);
  if (info->dlpi_tls_data == nullptr) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_TLS) continue;
    const auto lo = reinterpret_cast<uintptr_t>(info->dlpi_tls_data);
    const uintptr_t hi = lo + info->dlpi_phdr[i].p_memsz;
    s->tls_lo = s->tls_lo == 0 ? lo : std::min(s->tls_lo, lo);
    s->tls_hi = std::max(s->tls_hi, hi);
  }
  return 0;
}

std::string thread_name(const RaceState& s, int32_t linear) {
  const unsigned int l = static_cast<unsigned int>(linear);
  const unsigned int x = l % s.block_dim.x, y = l / s.block_dim.x % s.block_dim.y,
                     z = l / (s.block_dim.x * s.block_dim.y);
  return "thread (" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}

// True when the recorded access `a` and an access by the running thread are ordered.
bool ordered(const RaceState& s, const Access& a) {
  if (a.thread < 0 || a.thread == s.thread || a.epoch != s.epoch) return true;
  const int warp = s.thread / 32;
  return a.thread / 32 == warp && a.warp_epoch != s.warp_epochs[static_cast<size_t>(warp)];
}

void report(RaceState& s, uintptr_t address, bool write, const Access& other, bool other_wrote) {
  if (!s.report.empty()) return;
  char where[96];
  if (address >= s.dynamic_lo && address < s.dynamic_hi) {
    std::snprintf(where, sizeof where, "dynamic shared memory + %zu (address %p)",
                  static_cast<size_t>(address - s.dynamic_lo), reinterpret_cast<void*>(address));
  } else {
    std::snprintf(where, sizeof where, "static __shared__ memory at %p", reinterpret_cast<void*>(address));
  }
  s.report = std::string("shared-memory race on ") + where + ": " + thread_name(s, s.thread) +
             (write ? " writes" : " reads") + " it and " + thread_name(s, other.thread) +
             (other_wrote ? " wrote" : " read") +
             " it with no __syncthreads between (and no warp primitive, for lanes of one warp)";
}

void on_access(const void* pointer, size_t size, bool write) {
  const FastState& f = fast;
  if (f.thread < 0) return;
  const auto address = reinterpret_cast<uintptr_t>(pointer);
  if (!(address >= f.dynamic_lo && address < f.dynamic_hi) && !(address >= f.tls_lo && address < f.tls_hi)) return;
  RaceState& s = state;
  checked.fetch_add(1, std::memory_order_relaxed);
  const Access self{s.thread, s.epoch, s.warp_epochs[static_cast<size_t>(s.thread / 32)]};
  for (uintptr_t byte = address; byte < address + size; ++byte) {
    const bool in_dynamic = byte >= f.dynamic_lo && byte < f.dynamic_hi;
    if (!in_dynamic && !(byte >= f.tls_lo && byte < f.tls_hi)) continue;
    const size_t index = in_dynamic ? static_cast<size_t>(f.tls_hi - f.tls_lo + (byte - f.dynamic_lo))
                                    : static_cast<size_t>(byte - f.tls_lo);
    Cell& cell = s.cells[index];
    if (cell.block != s.block) cell = Cell{s.block, {}, {}};
    if (!ordered(s, cell.write)) report(s, byte, write, cell.write, true);
    if (write) {
      for (const Access& r : cell.read) {
        if (!ordered(s, r)) report(s, byte, write, r, false);
      }
      cell.write = self;
      continue;
    }
    Access* slot = nullptr;
    for (Access& r : cell.read) {
      if (r.thread == s.thread && r.epoch == s.epoch) slot = &r;
    }
    for (Access& r : cell.read) {
      if (slot == nullptr && (r.thread < 0 || r.epoch != s.epoch)) slot = &r;
    }
    if (slot != nullptr) *slot = self;
  }
}

}  // namespace

bool race_check_enabled() {
  static const bool enabled = read_enabled();
  return enabled;
}

void race_begin_block(dim3 block_dim, const void* dynamic_shared, size_t dynamic_bytes) {
  RaceState& s = state;
  if (!s.tls_known) {
    dl_iterate_phdr(tls_range, &s);
    s.tls_known = true;
  }
  s.block_dim = block_dim;
  s.epoch = 1;
  s.warp_epochs.assign((block_dim.x * block_dim.y * block_dim.z + 31) / 32, 0);
  s.dynamic_lo = reinterpret_cast<uintptr_t>(dynamic_shared);
  s.dynamic_hi = s.dynamic_lo + (dynamic_shared == nullptr ? 0 : dynamic_bytes);
  const size_t needed = static_cast<size_t>(s.tls_hi - s.tls_lo + (s.dynamic_hi - s.dynamic_lo));
  if (s.cells.size() < needed) s.cells.resize(needed);
  ++s.block;
  s.report.clear();
  s.thread = -1;
  fast = FastState{-1, s.dynamic_lo, s.dynamic_hi, s.tls_lo, s.tls_hi};
}

void race_end_block() {
  state.thread = -1;
  fast.thread = -1;
}

void race_set_thread(int linear) {
  state.thread = race_check_enabled() ? linear : -1;
  fast.thread = state.thread;
}

void race_barrier() { ++state.epoch; }

void race_warp_sync(int warp, unsigned int /*mask*/) {
  RaceState& s = state;
  if (static_cast<size_t>(warp) < s.warp_epochs.size()) ++s.warp_epochs[static_cast<size_t>(warp)];
}

const std::string& race_report() { return state.report; }

uint64_t race_checked_accesses() { return checked.load(std::memory_order_relaxed); }

}  // namespace tg::cuda::emu

// --- The ThreadSanitizer ABI that GCC's instrumentation calls ------------------------------
// Plain accesses go to the detector; atomics are performed (sequentially consistent, as the
// emulation's atomics are everywhere) and never race; function entry and exit are ignored.

#define TG_TSAN_EXPORT extern "C" __attribute__((visibility("default")))


namespace {
void read_access(const void* p, size_t n) { tg::cuda::emu::on_access(p, n, false); }
void write_access(const void* p, size_t n) { tg::cuda::emu::on_access(p, n, true); }
}  // namespace

TG_TSAN_EXPORT void __tsan_init() {}
TG_TSAN_EXPORT void __tsan_func_entry(void*) {}
TG_TSAN_EXPORT void __tsan_func_exit() {}
TG_TSAN_EXPORT void __tsan_vptr_update(void**, void*) {}
TG_TSAN_EXPORT void __tsan_vptr_read(void**) {}
TG_TSAN_EXPORT void __tsan_read_range(void* p, unsigned long n) { read_access(p, n); }
TG_TSAN_EXPORT void __tsan_write_range(void* p, unsigned long n) { write_access(p, n); }

#define TG_TSAN_ACCESS(N)                                                                       \
  TG_TSAN_EXPORT void __tsan_read##N(void* p) { read_access(p, N); }                            \
  TG_TSAN_EXPORT void __tsan_write##N(void* p) { write_access(p, N); }                          \
  TG_TSAN_EXPORT void __tsan_unaligned_read##N(void* p) { read_access(p, N); }                  \
  TG_TSAN_EXPORT void __tsan_unaligned_write##N(void* p) { write_access(p, N); }                \
  TG_TSAN_EXPORT void __tsan_volatile_read##N(void* p) { read_access(p, N); }                   \
  TG_TSAN_EXPORT void __tsan_volatile_write##N(void* p) { write_access(p, N); }                 \
  TG_TSAN_EXPORT void __tsan_unaligned_volatile_read##N(void* p) { read_access(p, N); }         \
  TG_TSAN_EXPORT void __tsan_unaligned_volatile_write##N(void* p) { write_access(p, N); }
TG_TSAN_ACCESS(1)
TG_TSAN_ACCESS(2)
TG_TSAN_ACCESS(4)
TG_TSAN_ACCESS(8)
TG_TSAN_ACCESS(16)

#define TG_TSAN_ATOMIC(N, T)                                                                               \
  TG_TSAN_EXPORT T __tsan_atomic##N##_load(const volatile T* a, int) { return __atomic_load_n(a, __ATOMIC_SEQ_CST); } \
  TG_TSAN_EXPORT void __tsan_atomic##N##_store(volatile T* a, T v, int) { __atomic_store_n(a, v, __ATOMIC_SEQ_CST); } \
  TG_TSAN_EXPORT T __tsan_atomic##N##_exchange(volatile T* a, T v, int) {                                 \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                                    \
  }                                                                                                        \
  TG_TSAN_EXPORT T __tsan_atomic##N##_fetch_add(volatile T* a, T v, int) {                                \
    return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                                     \
  }                                                                                                        \
  TG_TSAN_EXPORT T __tsan_atomic##N##_fetch_sub(volatile T* a, T v, int) {                                \
    return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                                     \
  }                                                                                                        \
  TG_TSAN_EXPORT T __tsan_atomic##N##_fetch_and(volatile T* a, T v, int) {                                \
    return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                                     \
  }                                                                                                        \
  TG_TSAN_EXPORT T __tsan_atomic##N##_fetch_or(volatile T* a, T v, int) {                                 \
    return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                                      \
  }                                                                                                        \
  TG_TSAN_EXPORT T __tsan_atomic##N##_fetch_xor(volatile T* a, T v, int) {                                \
    return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                                     \
  }                                                                                                        \
  TG_TSAN_EXPORT T __tsan_atomic##N##_fetch_nand(volatile T* a, T v, int) {                               \
    return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST);                                                    \
  }                                                                                                        \
  TG_TSAN_EXPORT int __tsan_atomic##N##_compare_exchange_strong(volatile T* a, T* c, T v, int, int) {     \
    return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                \
  }                                                                                                        \
  TG_TSAN_EXPORT int __tsan_atomic##N##_compare_exchange_weak(volatile T* a, T* c, T v, int, int) {       \
    return __atomic_compare_exchange_n(a, c, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                 \
  }                                                                                                        \
  TG_TSAN_EXPORT T __tsan_atomic##N##_compare_exchange_val(volatile T* a, T c, T v, int, int) {           \
    __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                      \
    return c;                                                                                              \
  }
TG_TSAN_ATOMIC(8, char)
TG_TSAN_ATOMIC(16, short)
TG_TSAN_ATOMIC(32, int)
TG_TSAN_ATOMIC(64, long)

TG_TSAN_EXPORT void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
TG_TSAN_EXPORT void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
