// Graph: one recorded region of work, replayable (PyTorch's torch.cuda.CUDAGraph). Between
// capture_begin(pool) and capture_end() the operators this thread runs execute normally and
// are recorded with the addresses they use; every CPU tensor made meanwhile comes from the
// private pool. replay() runs the recorded kernels again on the same memory, without dispatch.
// A Graph made for a CUDA device captures that device's current stream into a CUDA graph
// instead (cuda_graph_backend.h): its kernels are recorded, not run, and replay launches them.
// Invariants: replay requires a finished capture; the pool outlives the graph's recording.
// Threading: capture on one thread; replay from any thread, one replay at a time.
#pragma once

#include <memory>
#include <optional>

#include "graphs/mem_pool.h"
#include "graphs/recording.h"

namespace tg::graphs {

namespace detail {
class CaptureScope;
class CudaGraphBackend;
}  // namespace detail

class Graph {
 public:
  // A graph of CPU work, or of `device`'s work for a CUDA device (-1: the current one).
  explicit Graph(Device device = Device(DeviceType::CPU));
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Starts recording this thread's work into a new private pool, or into `pool` (shared with
  // the graphs captured into it before, as PyTorch's pool=other.pool()). Run the region once
  // eagerly before capturing it, so that lazy initialisation is not recorded.
  void capture_begin(std::optional<MemPool> pool = std::nullopt);
  void capture_end();
  // Runs the recorded kernels again. Inputs are read from, and outputs written to, the
  // tensors the capture used: copy new inputs into them first.
  void replay() const;

  const MemPool& pool() const;
  Device device() const { return device_; }
  bool captured() const { return captured_; }
  // Recorded calls (CPU) or CUDA graph nodes (kernels, copies, GEMMs).
  size_t num_nodes() const;
  size_t num_fallback_nodes() const { return recording_.num_fallback_calls(); }
  // How each node replays: by launches or through its kernel (Note [Replay by launches]).
  const Recording& recording() const { return recording_; }

 private:
  bool capturing() const;

  Device device_;
  std::unique_ptr<detail::CudaGraphBackend> cuda_;  // set for a CUDA device
  Recording recording_;
  std::optional<MemPool> pool_;
  std::unique_ptr<detail::CaptureScope> scope_;
  bool captured_ = false;
};

}  // namespace tg::graphs
