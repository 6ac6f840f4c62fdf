// Tree: graph trees (torch/_inductor/cudagraph_trees.py) on tg::graphs. Functions registered
// with a tree are recorded on first use and replayed after; all recordings share one private
// pool; a recording is keyed by its function, its inputs' signature, and the recordings run
// before it in the current generation (its path). See Note [Graph trees] in tree.cpp.
// A tree records on the device of its first call: the CPU, or a CUDA device, where each
// recording is a CUDA Graph in one private pool of the CUDA caching allocator (Note [Graph
// trees on CUDA]).
// Invariants: every node's pool state (checkpoint) holds exactly the blocks of the live
// outputs and input slots on its path; outputs handed out by a replay stay readable until a
// replay that may overwrite them (see Note [Liveness of replayed outputs]).
// Threading: a tree is used from the thread that made it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "graphs/mem_pool.h"

namespace tg::graphs {

using TreeFunction = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

struct TreeOptions {
  // A function that has been recorded this many times (it keeps meeting new shapes or paths)
  // runs eagerly from then on, with one warning.
  size_t max_recordings_per_function = 8;
  // Recordings kept at once; beyond it the least recently used one (with the recordings
  // after it on its path) is evicted.
  size_t max_live_recordings = 64;
  // Where the warning goes; nullptr: standard error.
  std::function<void(const std::string&)> warn;
};

struct TreeStats {
  size_t recordings = 0;   // recordings made (evicted ones included)
  size_t replays = 0;
  size_t eager_calls = 0;  // calls of functions past max_recordings_per_function
  size_t evictions = 0;
  size_t generations = 0;
  size_t live_recordings = 0;
};

class Tree {
 public:
  explicit Tree(TreeOptions options = {});
  ~Tree();
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;

  // Registers fn and returns its id. Inputs at static_inputs (parameters, buffers) are read in
  // place at replay: the caller keeps them where they are and updates them in place. Other
  // inputs are copied into the recording's input slots, except outputs of this tree's
  // recordings, which are read in place (a backward reading its forward's saved tensors).
  size_t add_function(TreeFunction fn, std::vector<size_t> static_inputs = {}, std::string name = {});
  // Runs function `id`: replays its recording for this path and these inputs, or records one.
  std::vector<Tensor> call(size_t id, const std::vector<Tensor>& inputs);
  // add_function, as a callable.
  TreeFunction wrap(TreeFunction fn, std::vector<size_t> static_inputs = {}, std::string name = {});
  // Starts a new generation: the next call starts a path from the root.
  void mark_step();

  // The tree's pool: a CPU pool until a first call on a CUDA device makes it that device's.
  const MemPool& pool() const;
  TreeStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A tree with a single function: tree(fn)(inputs) records fn on the first call and replays it.
TreeFunction tree(TreeFunction fn, std::vector<size_t> static_inputs = {}, TreeOptions options = {});

}  // namespace tg::graphs
