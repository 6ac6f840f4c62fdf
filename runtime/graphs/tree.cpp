#include "graphs/tree.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <tensorgen/tensorgen.h>

#include "core/error.h"
#include "core/intrusive_ptr.h"
#include "core/tensor_impl.h"
#include "dispatch/local_dispatch_key_set.h"
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

namespace {

void disown(const Tensor& t) {
  if (!t.defined() || !t.storage()) return;
  const DataPtr& owned = t.storage()->data_ptr();
  if (!is_pool_memory(owned)) return;
  // See Note [Disowned pool memory]. The storage object is not const; only the accessor is.
  const_cast<DataPtr&>(owned) = DataPtr(owned.get(), nullptr, nullptr, owned.device());
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
    Recording recording;
    std::vector<Tensor> slots;    // per input: its slot, or undefined when read in place
    std::vector<Tensor> outputs;  // the captured outputs (disowned pool memory)
    alloc::PoolState state_after;
    std::vector<Storage> issued;  // storages handed out by the latest call
    uint64_t last_used = 0;
    uint64_t serial = 0;
  };

  explicit Impl(TreeOptions o) : options(std::move(o)) {}

  TreeOptions options;
  MemPool pool;
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

  Key key_of(size_t id, const std::vector<Tensor>& inputs, std::vector<bool>& in_place) const {
    Key key{id, {}};
    in_place.assign(inputs.size(), false);
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& t = inputs[i];
      TG_CHECK(t.defined(), "[graphs::Tree] input ", i, " of ", functions[id].name, " is an undefined tensor");
      TG_CHECK(t.device().is_cpu(), "[graphs::Tree] input ", i, " is on ", t.device(),
               "; graph trees record CPU work only: capture CUDA work with tg::graphs::Graph(Device(kCUDA))");
      in_place[i] = functions[id].static_inputs.contains(i) || issued_by.contains(t.storage().get());
      key.inputs.push_back({t.scalar_type(), t.sizes().vec(), t.strides().vec(),
                            in_place[i] ? t.data_ptr() : nullptr});
    }
    return key;
  }

  alloc::PoolState empty_state() {
    alloc::PoolState state = cpu_graph_allocator().checkpoint_pool(0, pool.id());
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

  std::vector<Tensor> replay(Node& node, const std::vector<Tensor>& inputs) {
    invalidate_off_path(node.parent, &node, "a replay of " + describe(node));
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (node.slots[i].defined()) node.slots[i].copy_(inputs[i]);
    }
    node.recording.replay();
    ++stats.replays;
    return issue(node);
  }

  std::vector<Tensor> record(size_t id, Key key, const std::vector<Tensor>& inputs, const std::vector<bool>& in_place) {
    Function& f = functions[id];
    f.fn(inputs);  // warm-up: lazy initialisation must not land in the recording
    auto node = std::make_unique<Node>();
    node->key = key;
    node->parent = current;
    node->serial = next_serial++;
    invalidate_off_path(current, nullptr, describe(*node) + " (being recorded)");
    // Everything off the new node's path is free again. See Note [Graph trees].
    cpu_graph_allocator().restore_pool(current != nullptr ? current->state_after : empty_state());
    std::vector<Tensor> outputs;
    {
      detail::CaptureScope capture(node->recording, pool);
      std::vector<Tensor> args = inputs;
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (in_place[i]) {
          node->slots.emplace_back();
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
        node->slots.push_back(slot);
        args[i] = slot;
      }
      for (Tensor& out : f.fn(args)) outputs.push_back(out.defined() ? out.detach() : out);
    }
    for (const Tensor& out : outputs) disown(out);
    for (const Tensor& slot : node->slots) disown(slot);
    node->outputs = std::move(outputs);
    node->state_after = cpu_graph_allocator().checkpoint_pool(0, pool.id());
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
  cpu_graph_allocator().restore_pool(impl_->empty_state());
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
