// The host side of the device's index checks (index_check.h). See Note [Index checks on the
// device] in docs/cuda.md.
#include "cuda/index_check.h"

#include <array>
#include <new>
#include <atomic>
#include <mutex>

#include <cuda_runtime.h>

#include "core/error.h"
#include "cuda/cuda_check.h"
#include "cuda/cuda_device.h"

namespace tg::cuda {

namespace {

constexpr int kMaxDevices = 64;
std::array<std::atomic<IndexErrorRecord*>, kMaxDevices> records{};
std::mutex records_mutex;

}  // namespace

IndexErrorRecord* index_error_record(int device) {
  TG_CHECK(device >= 0 && device < kMaxDevices, "[cuda] device index ", device, " is out of range for the index checks");
  IndexErrorRecord* record = records[static_cast<size_t>(device)].load(std::memory_order_acquire);
  if (record != nullptr) return record;
  const std::lock_guard<std::mutex> lock(records_mutex);
  record = records[static_cast<size_t>(device)].load(std::memory_order_relaxed);
  if (record == nullptr) {
    void* memory = nullptr;
    // Portable pinned memory: with unified addressing every device reads and writes it at its
    // host address.
    TG_CUDA_CHECK(cudaHostAlloc(&memory, sizeof(IndexErrorRecord), cudaHostAllocPortable));
    record = new (memory) IndexErrorRecord{0, 0, 0, 0, 0};
    records[static_cast<size_t>(device)].store(record, std::memory_order_release);
  }
  return record;
}

void check_index_errors(int device) {
  if (device < 0 || device >= kMaxDevices) return;
  IndexErrorRecord* record = records[static_cast<size_t>(device)].load(std::memory_order_acquire);
  if (record == nullptr) return;
  auto* state = reinterpret_cast<std::atomic<unsigned int>*>(&record->state);
  if (state->load(std::memory_order_acquire) != 2u) return;
  const volatile IndexErrorRecord* r = record;
  const auto op = static_cast<IndexedOp>(r->op);
  const int64_t index = r->index, bound = r->bound, detail = r->detail;
  unsigned int complete = 2u;
  if (!state->compare_exchange_strong(complete, 0u)) return;  // another thread reports it
  const char* where = " (found by a CUDA kernel on the device; reported at the first check after it ran)";
  switch (op) {
    case IndexedOp::kIndexSelect:
    case IndexedOp::kIndexAdd:
      TG_THROW(IndexError, "[", op == IndexedOp::kIndexSelect ? "index_select" : "index_add", "] index ", index,
               " is out of range for a dim of size ", bound, where);
    case IndexedOp::kGather:
    case IndexedOp::kScatterAdd:
      TG_THROW(IndexError, "[", op == IndexedOp::kGather ? "gather" : "scatter_add", "] index ", index,
               " is out of bounds for dimension ", detail, " with size ", bound, where);
    case IndexedOp::kIndex:
    case IndexedOp::kIndexPut:
      TG_THROW(IndexError, "[", op == IndexedOp::kIndex ? "index" : "index_put_", "] index ", index,
               " is out of bounds for dimension ", detail, " with size ", bound, where);
    case IndexedOp::kEmbeddingBackward:
      TG_THROW(IndexError, "[embedding_backward] index ", index, " is out of range for ", bound, " embeddings", where);
    case IndexedOp::kNllLoss:
    case IndexedOp::kNllLossBackward:
      TG_THROW(IndexError, "[", op == IndexedOp::kNllLoss ? "nll_loss" : "nll_loss_backward", "] target ", index,
               " is out of bounds: expected a class index in [0, ", bound, ") or ignore_index (", detail, ")", where);
    case IndexedOp::kMaxPoolBackward:
    case IndexedOp::kAdaptiveMaxPoolBackward:
      // The CPU kernel's message (check_max_pool_indices).
      TG_THROW(IndexError, "[", op == IndexedOp::kMaxPoolBackward ? "" : "adaptive_", "max_pool", detail,
               "d_backward] index ", index, " is out of range for an input plane of ", bound, " elements", where);
  }
  TG_THROW(IndexError, "[cuda] a kernel recorded an index ", index, " out of [0, ", bound, ")", where);
}

void check_index_errors() { check_index_errors(current_device()); }

}  // namespace tg::cuda
