// The call interceptor of tg::graphs on this thread: records calls while a capture runs (see
// Note [CPU recording]) and refuses calls on tensors whose memory a later replay overwrote
// (see Note [Liveness of replayed outputs]). Threading: all state is thread-local; a capture,
// and a tree's outputs, are checked on the thread that made them.
// Invariant: the Tracer key is in this thread's included set iff activations > 0.
#pragma once

#include <string>

#include "core/storage.h"
#include "graphs/mem_pool.h"
#include "graphs/recording.h"

namespace tg::graphs::detail {

// While one lives, calls on this thread pass through the interceptor.
class InterceptorActivation {
 public:
  InterceptorActivation();
  ~InterceptorActivation();
  InterceptorActivation(const InterceptorActivation&) = delete;
  InterceptorActivation& operator=(const InterceptorActivation&) = delete;
};

// Records every operator call on this thread into `recording`, and allocates every CPU tensor
// from `pool`, until destroyed. Throws tg::Error when a capture already runs on this thread.
class CaptureScope {
 public:
  CaptureScope(Recording& recording, const MemPool& pool);
  ~CaptureScope();
  CaptureScope(const CaptureScope&) = delete;
  CaptureScope& operator=(const CaptureScope&) = delete;

 private:
  InterceptorActivation activation_;
  MemPool::AllocateScope allocate_;
};

bool is_capturing();
// The capture treats t as made by a recorded call (an input slot, refilled before replays).
void note_produced(const Tensor& t);
// Called by the pool allocator for each block it hands out on this thread.
void note_capture_allocation(const void* ptr);

// From now on, an operator call with a tensor on `storage` throws tg::Error with `message`.
void mark_overwritten(const Storage& storage, std::string message);
// Throws when `t`'s storage was marked overwritten. For reads that reach no operator.
void check_not_overwritten(const Tensor& t, const char* what);

}  // namespace tg::graphs::detail
