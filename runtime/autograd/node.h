// Node: one operation of the recorded graph. apply() takes the gradients of the node's
// outputs and returns the gradients of its inputs, which flow along next_edges_ (one edge
// per input; input i's gradient goes to next_edges_[i]).
// sequence_nr orders nodes: a node created later runs earlier in backward (the engine's
// ready queue pops the highest sequence_nr first).
// Naming follows the node's own apply(), as PyTorch's Node does: num_inputs() == number of
// input metadata entries (the gradients apply() receives, one per forward output) and
// num_outputs() == next_edges().size() (the gradients apply() returns, one per forward input).
// Threading: hooks are added while no backward pass runs through the node; apply() runs
// with mutex() held by the engine.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "autograd/anomaly_mode.h"
#include "autograd/edge.h"
#include "autograd/tensor_hooks.h"
#include "core/dim_vector.h"
#include "core/pooled_object.h"
#include "core/stream.h"
#include "core/tensor.h"

namespace tg::autograd {

using variable_list = std::vector<Tensor>;
// Pooled (core/pooled_object.h): recording an operation makes one.
using edge_list = std::vector<Edge, PooledAllocator<Edge>>;

// The shape, dtype and device of a tensor whose gradient a node receives: the engine sums a
// broadcast gradient down to `sizes` (sum_to) and casts it to `dtype` before passing it on.
// stream() is the stream the forward op ran on (the current stream of `device` when the
// output was recorded), for devices with streams; the node's backward runs on it. See
// Note [Streams in backward] in docs/autograd.md. The id is kept in 32 bits (-1: none) so
// that the struct stays as small as it was without streams: nodes are made per operation.
struct InputMetadata {
  DimVector sizes;
  ScalarType dtype = ScalarType::Undefined;
  Device device{DeviceType::CPU};
  int32_t stream_id = -1;

  std::optional<Stream> stream() const {
    if (stream_id < 0) return std::nullopt;
    return Stream(device, stream_id);
  }
};

// The next sequence number of this thread (each thread counts on its own, as in PyTorch).
uint64_t next_sequence_nr();

class Node : public std::enable_shared_from_this<Node> {
 public:
  // The edges are taken by rvalue reference: recording an operation moves its edge list in
  // once, with no by-value copies left to destroy.
  explicit Node(edge_list&& next_edges = {}) : Node(next_sequence_nr(), std::move(next_edges)) {}
  Node(uint64_t sequence_nr, edge_list&& next_edges) : sequence_nr_(sequence_nr), next_edges_(std::move(next_edges)) {
    if (AnomalyMode::is_enabled()) record_anomaly_metadata();
  }
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  // Frees the nodes only this one keeps alive without recursion, so that dropping a graph
  // of any length does not overflow the stack. See Note [Iterative graph deletion].
  virtual ~Node();

  // Runs the node: pre-hooks, apply(), post-hooks. Called by the engine.
  variable_list operator()(variable_list&& grads);

  virtual std::string name() const = 0;
  // Frees saved tensors after a backward without retain_graph; a later apply must then
  // raise the "backward through the graph a second time" error.
  virtual void release_variables() {}

  uint64_t sequence_nr() const noexcept { return sequence_nr_; }
  const edge_list& next_edges() const noexcept { return next_edges_; }
  edge_list& next_edges() noexcept { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_.at(i); }
  size_t num_outputs() const noexcept { return next_edges_.size(); }  // gradients apply() returns
  void add_next_edge(Edge edge) { next_edges_.push_back(std::move(edge)); }
  void set_next_edges(edge_list edges) { next_edges_ = std::move(edges); }

  // Whether the gradient of input i is needed (its edge is valid).
  bool should_compute_output(size_t i) const { return i < next_edges_.size() && next_edges_[i].is_valid(); }

  // One entry per gradient apply() receives (per output of the forward op), recorded when
  // the output's history is set. Returns the index of the entry.
  uint32_t add_input_metadata(const Tensor& t);
  // For an output that is not differentiable: keeps positions aligned, never validated.
  uint32_t add_undefined_input_metadata();
  // Throws std::out_of_range past num_inputs().
  const InputMetadata& input_metadata(size_t i) const {
    if (i == 0 && num_inputs_ != 0) return first_input_metadata_;
    return later_input_metadata(i);
  }
  size_t num_inputs() const noexcept { return num_inputs_; }
  // The stream backward runs on: that of the first output on a device with streams, or
  // nullopt when every output is on the CPU (PyTorch's Node::stream()).
  std::optional<Stream> stream() const {
    for (size_t i = 0; i < num_inputs_; ++i) {
      const InputMetadata& metadata = input_metadata(i);
      if (metadata.stream_id >= 0) return metadata.stream();
    }
    return std::nullopt;
  }

  // Hooks of the tensors this node made (non-leaf tensors' register_hook and retain_grad).
  // The engine runs them on the gradients this node receives, before capturing those for
  // autograd::grad and before operator(): tensor hooks first, then retains_grad hooks, so a
  // retained gradient is the one the hooks produced. See Note [Tensor hooks] in docs/autograd.md.
  using RetainsGradHook = std::function<void(const Tensor& grad)>;
  void add_tensor_pre_hook(uint32_t output_nr, std::shared_ptr<TensorHookList> hooks);
  void set_retains_grad_hook(uint32_t output_nr, RetainsGradHook hook);
  // Removes and returns the retains_grad hook of output_nr (empty when there is none).
  RetainsGradHook pop_retains_grad_hook(uint32_t output_nr);
  // Runs the hooks above on `grads` (one per output). AccumulateGrad overrides it to run its
  // leaf's hooks, which it reads from the leaf since the leaf holds it only weakly.
  virtual variable_list call_tensor_pre_hooks(variable_list grads);

  // Hooks on the gradients this node receives (pre) and returns (post).
  using PreHook = std::function<variable_list(const variable_list& grads)>;
  using PostHook = std::function<variable_list(const variable_list& grad_inputs, const variable_list& grad_outputs)>;
  void add_pre_hook(PreHook hook) { extras().pre_hooks.push_back(std::move(hook)); }
  void add_post_hook(PostHook hook) { extras().post_hooks.push_back(std::move(hook)); }

  // Where the node was made, when it was made in anomaly mode (else nullptr).
  const AnomalyMetadata* anomaly_metadata() const noexcept {
    return extras_ != nullptr ? extras_->anomaly_metadata.get() : nullptr;
  }

  // Held by the engine while apply() runs: nodes reachable from two concurrent backward
  // passes (a shared leaf's AccumulateGrad) run one at a time.
  std::mutex& mutex() { return mutex_; }

 protected:
  virtual variable_list apply(variable_list&& grads) = 0;

 private:
  InputMetadata& next_input_metadata_slot();
  const InputMetadata& later_input_metadata(size_t i) const;

  uint64_t sequence_nr_;
  edge_list next_edges_;
  // Most nodes have one output: its metadata lives in the node, the others' in a vector, so
  // recording an ordinary op allocates no metadata block.
  InputMetadata first_input_metadata_;
  std::vector<InputMetadata> more_input_metadata_;
  uint32_t num_inputs_ = 0;
  std::mutex mutex_;
  // What few nodes have (hooks, anomaly mode's backtrace), in one block made when the first
  // of them is added: an ordinary node is made and freed without touching them.
  struct Extras {
    std::vector<PreHook> pre_hooks;
    std::vector<PostHook> post_hooks;
    std::vector<std::pair<uint32_t, std::shared_ptr<TensorHookList>>> tensor_pre_hooks;
    std::vector<std::pair<uint32_t, RetainsGradHook>> retains_grad_hooks;
    std::unique_ptr<AnomalyMetadata> anomaly_metadata;
  };
  std::unique_ptr<Extras> extras_;
  Extras& extras();

  void record_anomaly_metadata();
};

// A new node of type T. Recording an operation makes one, so its memory (the object and
// shared_ptr's count in one block) is pooled (core/pooled_object.h) rather than malloc'ed.
template <typename T, typename... Args>
std::shared_ptr<T> make_node(Args&&... args) {
  return std::allocate_shared<T>(PooledAllocator<T>(), std::forward<Args>(args)...);
}

}  // namespace tg::autograd
