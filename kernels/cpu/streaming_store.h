// Stores that bypass the caches, for kernels that write more than the caches hold and will
// not read it back soon: a plain store to a line not in cache first reads the line (a read
// for ownership), a third more memory traffic for a kernel that reads one array and writes
// one. See Note [Streaming stores in the transpose] (transpose_copy.cpp).
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tg::cpu {

// Whether `bytes` starting at `p` can go through store_streaming: 16-byte aligned chunks.
inline bool streamable(const void* p, int64_t bytes) {
#if defined(__SSE2__)
  return reinterpret_cast<uintptr_t>(p) % 16 == 0 && bytes % 16 == 0;
#else
  (void)p, (void)bytes;
  return false;
#endif
}

// Copies `bytes` (a multiple of 16) from `src` to 16-byte aligned `dst`, bypassing the caches
// (a plain copy where SSE2 is missing). Callers end with stream_fence() before the data is
// read by another thread.
inline void store_streaming(void* dst, const void* src, int64_t bytes) {
#if defined(__SSE2__)
  for (int64_t byte = 0; byte < bytes; byte += 16) {
    __m128i chunk;
    std::memcpy(&chunk, static_cast<const char*>(src) + byte, sizeof chunk);
    _mm_stream_si128(reinterpret_cast<__m128i*>(static_cast<char*>(dst) + byte), chunk);
  }
#else
  std::memcpy(dst, src, static_cast<size_t>(bytes));
#endif
}

// Orders the streaming stores before later stores (they are weakly ordered).
inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace tg::cpu
