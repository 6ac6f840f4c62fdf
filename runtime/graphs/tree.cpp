#include "graphs/tree.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <tensorgen/tensorgen.h>

#include "core/error.h"
#include "core/intrusive_ptr.h"
#include "core/tensor_impl.h"
#include "dispatch/local_dispatch_key_set.h"
#include "graphs/cuda_graph_backend.h"
#include "graphs/graph.h"
#include "graphs/interceptor.h"
#include "graphs/recording.h"

namespace tg::graphs {

// Note [Graph trees]
// A node is one recording: a function run on inputs with one signature after the nodes on its
// path. Calling function f at the current position (the last node run in this generation, or
// the root) replays the child of that position with f's key, or records a new child:
//
//   generation 1:  root ── fwd ── bwd_a          (calls: fwd, bwd_a)
//   generation 2:  root ── fwd ─┬ bwd_a          (calls: fwd, bwd_b: fwd replays,
//                               └ bwd_b           bwd_b is recorded as fwd's second child)
//
// All nodes share the tree's pool. After recording node N the pool is checkpointed: the
// checkpoint holds N's outputs and input slots and those of its ancestors, nothing else.
// Before recording a child of P the pool is restored to P's checkpoint, so the new branch
// reuses the memory of every other branch: the tree needs the memory of its largest path,
// not the sum. A new generation starts with mark_step(), or when the function of the path's
// first node is called again.
//
// Note [Disowned pool memory]
// Once recorded, a node's outputs and input slots are owned by the pool's checkpoints, not
// by tensors: their storages' deleters are swapped for none (as PyTorch's cudagraph trees
// swap deleters after setCheckpointPoolState), so restoring a checkpoint that frees their
// blocks never meets a tensor that frees them a second time.
//
// Note [Liveness of replayed outputs]
// The caller gets each replay's outputs as new storages over the pool memory. A later replay
// of a node that is not an ancestor of the one that made them may overwrite that memory;
// before it runs, the storages it may overwrite are marked, and any operator given a tensor
// on a marked storage throws, naming the recording that overwrote it. Views and .detach()
// share the storage, so they are caught too (pytorch#104435 was a .detach() that escaped a
// check made per tensor object). Reads that reach no operator (raw data_ptr()) are not checked.
//
// Note [Graph trees on CUDA]
// A tree takes its device from its first call; its pool is then a private pool of that
// device's caching allocator (CPU: the graph allocator; CUDA: the CUDA caching allocator), and
// every later call must bring inputs on that device. On CUDA each node is a CUDA Graph
// (cuda_graph_backend.h) instead of a CPU Recording, and as cudagraph_trees does:
// - all recordings run on one side stream of the tree (the allocator keeps a pool's free
//   blocks per stream, so a branch reuses its siblings' memory only on the same stream),
//   after a device synchronisation: warm-up, pool restore, then the capture;
// - input slots are allocated from the pool inside the capture (allocating launches nothing)
//   and filled outside it: a capture records kernels without running them, so after
//   capture_end the node is run once, like a replay, to produce the call's outputs;
// - replays copy inputs into the slots and launch the graph on the caller's current stream,
//   ordered with the caller's work, as make_graphed_callables does.
// Checkpoints, restores, disowned outputs and liveness marks are the CPU tree's, on the CUDA
// allocator's blocks.

namespace {

// Whether t's memory starts an allocated block of `state` (its pool's memory).
bool in_pool(const Tensor& t, const alloc::PoolState& state) {
  const auto address = reinterpret_cast<uintptr_t>(t.storage()->data());
  for (const alloc::CheckpointSegment& segment : state.segments) {
    if (address < segment.address || address >= segment.address + segment.size) continue;
    for (const alloc::CheckpointBlock& block : segment.blocks) {
      if (block.allocated && block.address == address) return true;
    }
  }
  return false;
}

void disown(const Tensor& t, const alloc::PoolState& state) {
  if (!t.defined() || !t.storage() || t.storage()->data() == nullptr) return;
  const DataPtr& owned = t.storage()->data_ptr();
  if (owned.deleter() == nullptr || !in_pool(t, state)) return;
  // See Note [Disowned pool memory]. The storage object is not const; only the accessor is.
  // Assigning a new DataPtr would run the old one's deleter (freeing the block the checkpoint
  // keeps): swap instead, into a holder that is never destroyed, so the deleter never runs.
  alignas(DataPtr) unsigned char holder_bytes[sizeof(DataPtr)];
  auto* holder = new (holder_bytes) DataPtr(owned.get(), nullptr, nullptr, owned.device());
  const_cast<DataPtr&>(owned).swap(*holder);
}

struct InputSignature {
  ScalarType dtype;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  const void* static_address;  // for inputs read in place; nullptr for copied ones
  auto operator<=>(const InputSignature&) const = default;
};

struct Key {
  size_t function;
  std::vector<InputSignature> inputs;
  auto operator<=>(const Key&) const = default;
};

}  // namespace

struct Tree::Impl {
  struct Function {
    TreeFunction fn;
    std::set<size_t> static_inputs;
    std::string name;
    size_t recordings = 0;
    bool warned = false;
  };

  struct Node {
    Key key;
    Node* parent = nullptr;
    std::map<Key, std::unique_ptr<Node>> children;
    Recording recording;                 // CPU trees
    std::unique_ptr<Graph> cuda_graph;   // CUDA trees
    std::vector<Tensor> slots;    // per input: its slot, or undefined when read in place
    std::vector<Tensor> outputs;  // the captured outputs (disowned pool memory)
    alloc::PoolState state_after;
    std::vector<Storage> issued;  // storages handed out by the latest call
    uint64_t last_used = 0;
    uint64_t serial = 0;
  };

  explicit Impl(TreeOptions o) : options(std::move(o)) {}

  TreeOptions options;
  MemPool pool;                         // a CPU pool until the first call names a CUDA device
  std::optional<Device> device;         // fixed by the first call; see Note [Graph trees on CUDA]
  int64_t cuda_stream = -1;             // the side stream of a CUDA tree's recordings
  detail::InterceptorActivation activation;  // liveness checks on this thread
  std::vector<Function> functions;
  std::map<Key, std::unique_ptr<Node>> roots;
  Node* current = nullptr;
  bool new_generation = true;
  std::unordered_map<const StorageImpl*, Node*> issued_by;  // live issued storages
  TreeStats stats;
  uint64_t clock = 0;
  uint64_t next_serial = 1;

  std::string describe(const Node& node) const {
    const Function& f = functions[node.key.function];
    return "recording #" + std::to_string(node.serial) + " of function '" +
           (f.name.empty() ? "function " + std::to_string(node.key.function) : f.name) + "'";
  }

  void warn(const std::string& message) const {
    if (options.warn) {
      options.warn(message);
    } else {
      std::cerr << "tensorgen warning: " << message << "\n";
    }
  }

  template <typename F>
  void for_each_node(F&& f) {
    std::vector<Node*> stack;
    for (auto& [key, node] : roots) stack.push_back(node.get());
    while (!stack.empty()) {
      Node* node = stack.back();
      stack.pop_back();
      f(*node);
      for (auto& [key, child] : node->children) stack.push_back(child.get());
    }
  }

  static bool is_ancestor_or_self(const Node* ancestor, const Node* node) {
    for (; node != nullptr; node = node->parent) {
      if (node == ancestor) return true;
    }
    return false;
  }

  void invalidate(Node& node, const std::string& because) {
    for (const Storage& storage : node.issued) {
      issued_by.erase(storage.get());
      detail::mark_overwritten(storage, "this tensor is an output of " + describe(node) +
                                            " and its memory was overwritten by " + because +
                                            ". Outputs of a graph tree live in its pool until the next replay "
                                            "that may reuse that memory; clone() an output to keep it");
    }
    node.issued.clear();
  }

  // Marks the outputs handed out by every node that is not `kept` or one of its ancestors,
  // and by `also`: what running a child of `kept` may overwrite.
  void invalidate_off_path(const Node* kept, const Node* also, const std::string& because) {
    for_each_node([&](Node& node) {
      if (&node == also || !is_ancestor_or_self(&node, kept)) invalidate(node, because);
    });
  }

  bool on_cuda() const { return pool.device().is_cuda(); }
  alloc::CachingAllocator& allocator() const { return on_cuda() ? detail::cuda_pool_allocator() : cpu_graph_allocator(); }
  int allocator_device() const { return on_cuda() ? pool.device().index() : 0; }

  // Fixes the tree's device at its first call; later calls must keep to it.
  void check_device(size_t id, const std::vector<Tensor>& inputs) {
    if (inputs.empty()) return;
    for (size_t i = 0; i < inputs.size(); ++i) {
      TG_CHECK(inputs[i].defined(), "[graphs::Tree] input ", i, " of ", functions[id].name, " is an undefined tensor");
      TG_CHECK(inputs[i].device() == inputs[0].device(), "[graphs::Tree] input ", i, " of ", functions[id].name,
               " is on ", inputs[i].device(), " but input 0 on ", inputs[0].device(),
               ": the recordings of a graph tree run on one device; move the inputs to one device");
    }
    Device given = inputs[0].device();
    TG_CHECK(given.is_cpu() || given.is_cuda(), "[graphs::Tree] graph trees record CPU or CUDA work, got inputs on ",
             given);
    if (!device) {
      if (given.is_cuda()) {
        pool = MemPool(given);  // resolves the index and checks the device exists
        cuda_stream = detail::reserve_side_stream(pool.device());
      }
      device = pool.device();
    }
    if (given.is_cuda() && !given.has_index()) given = detail::resolve_cuda_device(given, "graphs::Tree");
    TG_CHECK(given == *device, "[graphs::Tree] ", functions[id].name, " was given inputs on ", given,
             " but this graph tree records work on ", *device,
             " (the device of its first call): make one tree per device");
  }

  Key key_of(size_t id, const std::vector<Tensor>& inputs, std::vector<bool>& in_place) const {
    Key key{id, {}};
    in_place.assign(inputs.size(), false);
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& t = inputs[i];
      in_place[i] = functions[id].static_inputs.contains(i) || issued_by.contains(t.storage().get());
      key.inputs.push_back({t.scalar_type(), t.sizes().vec(), t.strides().vec(),
                            in_place[i] ? t.data_ptr() : nullptr});
    }
    return key;
  }

  alloc::PoolState empty_state() {
    alloc::PoolState state = allocator().checkpoint_pool(allocator_device(), pool.id());
    for (alloc::CheckpointSegment& segment : state.segments) segment.blocks = {{segment.address, segment.size, 0, false}};
    return state;
  }

  std::vector<Tensor> issue(Node& node) {
    std::vector<Tensor> result;
    for (const Tensor& out : node.outputs) {
      if (!out.defined()) {
        result.emplace_back();
        continue;
      }
      const StorageImpl& s = *out.storage();
      Storage storage = make_intrusive<StorageImpl>(DataPtr(s.data(), nullptr, nullptr, s.device()), s.nbytes(), nullptr);
      auto impl = make_intrusive<TensorImpl>(storage, out.scalar_type(), out.sizes());
      impl->set_sizes_and_strides(out.sizes(), out.strides());
      impl->set_storage_offset(out.storage_offset());
      node.issued.push_back(storage);
      issued_by[storage.get()] = &node;
      result.emplace_back(std::move(impl));
    }
    node.last_used = ++clock;
    return result;
  }

  // Fills the input slots and runs the node's recording.
  void run(Node& node, const std::vector<Tensor>& inputs) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (node.slots[i].defined()) node.slots[i].copy_(inputs[i]);
    }
    if (node.cuda_graph) {
      node.cuda_graph->replay();
    } else {
      node.recording.replay();
    }
  }

  std::vector<Tensor> replay(Node& node, const std::vector<Tensor>& inputs) {
    invalidate_off_path(node.parent, &node, "a replay of " + describe(node));
    run(node, inputs);
    ++stats.replays;
    return issue(node);
  }

  // Captures the node's CUDA graph; see Note [Graph trees on CUDA].
  std::vector<Tensor> capture_cuda(Node& node, const TreeFunction& fn, const std::vector<Tensor>& inputs,
                                   const std::vector<bool>& in_place) {
    node.cuda_graph = std::make_unique<Graph>(pool.device());
    node.cuda_graph->capture_begin(pool);
    std::vector<Tensor> args = inputs;
    for (size_t i = 0; i < inputs.size(); ++i) {
      // A slot, from the pool, filled before each run of the graph (outside it).
      node.slots.push_back(in_place[i] ? Tensor() : tg::empty_like(inputs[i]));
      if (!in_place[i]) args[i] = node.slots.back();
    }
    std::vector<Tensor> outputs;
    for (Tensor& out : fn(args)) outputs.push_back(out.defined() ? out.detach() : out);
    node.cuda_graph->capture_end();
    return outputs;
  }

  // Records the node's CPU calls, with its input slots filled outside the recording.
  std::vector<Tensor> capture_cpu(Node& node, const TreeFunction& fn, const std::vector<Tensor>& inputs,
                                  const std::vector<bool>& in_place) {
    detail::CaptureScope capture(node.recording, pool);
    std::vector<Tensor> args = inputs;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (in_place[i]) {
        node.slots.emplace_back();
        continue;
      }
      Tensor slot;
      {
        // The slot is filled before each replay, outside the recording.
        ExcludeDispatchKeyGuard no_recording(DispatchKey::Tracer);
        slot = tg::empty_like(inputs[i]);
        slot.copy_(inputs[i]);
      }
      detail::note_produced(slot);
      node.slots.push_back(slot);
      args[i] = slot;
    }
    std::vector<Tensor> outputs;
    for (Tensor& out : fn(args)) outputs.push_back(out.defined() ? out.detach() : out);
    return outputs;
  }

  std::vector<Tensor> record(size_t id, Key key, const std::vector<Tensor>& inputs, const std::vector<bool>& in_place) {
    Function& f = functions[id];
    auto node = std::make_unique<Node>();
    node->key = key;
    node->parent = current;
    node->serial = next_serial++;
    std::vector<Tensor> outputs;
    {
      // CUDA: on the tree's side stream, between device synchronisations (nothing on the CPU).
      const detail::SideStreamScope side_stream(pool.device(), cuda_stream);
      f.fn(inputs);  // warm-up: lazy initialisation must not land in the recording
      invalidate_off_path(current, nullptr, describe(*node) + " (being recorded)");
      // Everything off the new node's path is free again. See Note [Graph trees].
      allocator().restore_pool(current != nullptr ? current->state_after : empty_state());
      outputs = on_cuda() ? capture_cuda(*node, f.fn, inputs, in_place) : capture_cpu(*node, f.fn, inputs, in_place);
    }
    node->state_after = allocator().checkpoint_pool(allocator_device(), pool.id());
    for (const Tensor& out : outputs) disown(out, node->state_after);
    for (const Tensor& slot : node->slots) disown(slot, node->state_after);
    node->outputs = std::move(outputs);
    // A CUDA capture ran nothing: run the graph once for this call's outputs.
    if (node->cuda_graph) run(*node, inputs);
    ++f.recordings;
    ++stats.recordings;
    auto& siblings = current != nullptr ? current->children : roots;
    Node* made = siblings.emplace(std::move(key), std::move(node)).first->second.get();
    current = made;
    std::vector<Tensor> result = issue(*made);
    evict_over_limit(made);
    return result;
  }

  size_t count_nodes() {
    size_t n = 0;
    for_each_node([&](Node&) { ++n; });
    return n;
  }

  void evict_over_limit(Node* keep) {
    while (count_nodes() > options.max_live_recordings) {
      Node* victim = nullptr;
      for_each_node([&](Node& node) {
        if (is_ancestor_or_self(&node, keep)) return;  // never the path just run
        if (victim == nullptr || node.last_used < victim->last_used) victim = &node;
      });
      if (victim == nullptr) return;
      const std::string because = "the eviction of " + describe(*victim) + " (max_live_recordings)";
      std::vector<Node*> subtree;
      std::vector<Node*> stack{victim};
      while (!stack.empty()) {
        Node* n = stack.back();
        stack.pop_back();
        subtree.push_back(n);
        for (auto& [k, child] : n->children) stack.push_back(child.get());
      }
      for (Node* n : subtree) invalidate(*n, because);
      stats.evictions += subtree.size();
      auto& siblings = victim->parent != nullptr ? victim->parent->children : roots;
      siblings.erase(victim->key);
    }
  }
};

Tree::Tree(TreeOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  TG_CHECK_VALUE(impl_->options.max_live_recordings >= 1, "[graphs::Tree] max_live_recordings must be at least 1");
}

Tree::~Tree() {
  impl_->invalidate_off_path(nullptr, nullptr, "the destruction of its graph tree");
  impl_->current = nullptr;
  impl_->roots.clear();
  // Free every block, so that the pool's segments go back when the pool is released.
  try {
    impl_->allocator().restore_pool(impl_->empty_state());
  } catch (const Error&) {  // a destructor must not throw; the pool's memory stays reserved
  }
}

size_t Tree::add_function(TreeFunction fn, std::vector<size_t> static_inputs, std::string name) {
  TG_CHECK(fn != nullptr, "[graphs::Tree::add_function] the function is empty");
  const size_t id = impl_->functions.size();
  if (name.empty()) name = "function " + std::to_string(id);
  impl_->functions.push_back({std::move(fn), {static_inputs.begin(), static_inputs.end()}, std::move(name)});
  return id;
}

std::vector<Tensor> Tree::call(size_t id, const std::vector<Tensor>& inputs) {
  Impl& t = *impl_;
  TG_CHECK_INDEX(id < t.functions.size(), "[graphs::Tree::call] no function with id ", id, "; the tree has ",
                 t.functions.size());
  TG_CHECK(!detail::is_capturing(), "[graphs::Tree::call] cannot run a graph tree inside a capture");
  for (const Tensor& input : inputs) detail::check_not_overwritten(input, "graphs::Tree::call");
  t.check_device(id, inputs);
  // A new generation: see Note [Graph trees].
  if (t.current != nullptr) {
    const Impl::Node* first = t.current;
    while (first->parent != nullptr) first = first->parent;
    if (first->key.function == id) t.new_generation = true;
  }
  if (t.new_generation) {
    t.current = nullptr;
    t.new_generation = false;
    ++t.stats.generations;
  }
  std::vector<bool> in_place;
  Key key = t.key_of(id, inputs, in_place);
  auto& children = t.current != nullptr ? t.current->children : t.roots;
  if (auto it = children.find(key); it != children.end()) {
    t.current = it->second.get();
    return t.replay(*it->second, inputs);
  }
  Impl::Function& f = t.functions[id];
  if (f.recordings >= t.options.max_recordings_per_function) {
    if (!f.warned) {
      f.warned = true;
      t.warn("[graphs::Tree] '" + f.name + "' was recorded " + std::to_string(f.recordings) +
             " times (max_recordings_per_function); it keeps meeting new input shapes or paths, so it runs "
             "eagerly from now on");
    }
    ++t.stats.eager_calls;
    return f.fn(inputs);
  }
  return t.record(id, std::move(key), inputs, in_place);
}

TreeFunction Tree::wrap(TreeFunction fn, std::vector<size_t> static_inputs, std::string name) {
  const size_t id = add_function(std::move(fn), std::move(static_inputs), std::move(name));
  return [this, id](const std::vector<Tensor>& inputs) { return call(id, inputs); };
}

void Tree::mark_step() { impl_->new_generation = true; }

const MemPool& Tree::pool() const { return impl_->pool; }

TreeStats Tree::stats() const {
  TreeStats s = impl_->stats;
  s.live_recordings = impl_->count_nodes();
  return s;
}

TreeFunction tree(TreeFunction fn, std::vector<size_t> static_inputs, TreeOptions options) {
  auto t = std::make_shared<Tree>(std::move(options));
  const size_t id = t->add_function(std::move(fn), std::move(static_inputs));
  return [t, id](const std::vector<Tensor>& inputs) { return t->call(id, inputs); };
}

}  // namespace tg::graphs
