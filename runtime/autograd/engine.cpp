#include "autograd/engine.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "autograd/accumulate_grad.h"
#include "autograd/anomaly_mode.h"
#include "autograd/functions.h"
#include "autograd/grad_mode.h"
#include "autograd/input_buffer.h"
#include "autograd/variable_type_utils.h"
#include "core/stream_guard.h"
#include "tensorgen/ops.h"

namespace tg::autograd {

namespace {

struct NodeTask {
  std::shared_ptr<Node> fn;
  InputBuffer inputs;
};

// Ready nodes, highest sequence_nr first (a node made later in forward runs earlier).
class ReadyQueue {
 public:
  void push(NodeTask task) {
    heap_.push_back(std::move(task));
    std::push_heap(heap_.begin(), heap_.end(), runs_later);
  }
  NodeTask pop() {
    std::pop_heap(heap_.begin(), heap_.end(), runs_later);
    NodeTask task = std::move(heap_.back());
    heap_.pop_back();
    return task;
  }
  bool empty() const noexcept { return heap_.empty(); }

 private:
  static bool runs_later(const NodeTask& a, const NodeTask& b) { return a.fn->sequence_nr() < b.fn->sequence_nr(); }
  std::vector<NodeTask> heap_;
};

// For a pass with `outputs` (autograd::grad, or backward with inputs): which nodes run and
// which gradients are captured. should_execute() == needed || captures a gradient.
struct ExecInfo {
  bool needed = false;
  std::vector<std::pair<uint32_t, size_t>> captures;  // (input slot of this node, index in captured)
  bool should_execute() const noexcept { return needed || !captures.empty(); }
};

// The state of one backward pass. Owned by the calling thread: nothing here is shared.
struct GraphTask {
  bool keep_graph = false;
  bool pruned = false;  // exec_info decides what runs
  std::unordered_map<Node*, int> dependencies;  // edges still to deliver, per node
  std::unordered_map<Node*, InputBuffer> not_ready;
  std::unordered_map<Node*, ExecInfo> exec_info;
  variable_list captured;
  // Streams of the nodes that wrote leaf gradients or captured ones: the caller's current
  // streams wait for them when the pass ends (Note [Streams in backward]). Empty on CPU.
  std::unordered_set<Stream> leaf_streams;
};

// dependencies[n] == number of edges into n from nodes reachable from root.
void compute_dependencies(Node* root, GraphTask& task) {
  std::unordered_set<Node*> seen{root};
  std::vector<Node*> stack{root};
  while (!stack.empty()) {
    Node* fn = stack.back();
    stack.pop_back();
    for (const Edge& edge : fn->next_edges()) {
      Node* next = edge.function.get();
      if (next == nullptr) continue;
      ++task.dependencies[next];
      if (seen.insert(next).second) stack.push_back(next);
    }
  }
}

// Marks the nodes on a path from root to an output edge: post-order DFS, a node is needed
// when one of its next nodes should execute.
void init_to_execute(Node* root, const edge_list& outputs, bool accumulate_grad, GraphTask& task) {
  task.pruned = true;
  task.exec_info[root].needed = true;
  for (size_t i = 0; i < outputs.size(); ++i) {
    ExecInfo& info = task.exec_info[outputs[i].function.get()];
    if (accumulate_grad) {
      info.needed = true;
    } else {
      info.captures.emplace_back(outputs[i].input_nr, i);
    }
  }
  if (!accumulate_grad) task.captured.resize(outputs.size());

  struct Frame {
    Node* fn;
    size_t next = 0;
  };
  std::unordered_set<Node*> visited{root};
  std::vector<Frame> stack{Frame{root}};
  while (!stack.empty()) {
    Frame& frame = stack.back();
    if (frame.next < frame.fn->next_edges().size()) {
      Node* child = frame.fn->next_edges()[frame.next++].function.get();
      if (child != nullptr && visited.insert(child).second) stack.push_back(Frame{child});
      continue;
    }
    Node* fn = frame.fn;
    stack.pop_back();
    for (const Edge& edge : fn->next_edges()) {
      auto it = task.exec_info.find(edge.function.get());
      if (edge.function != nullptr && it != task.exec_info.end() && it->second.should_execute()) {
        task.exec_info[fn].needed = true;
        break;
      }
    }
  }
}

// Checks the gradients `fn_name` returned against what the receiving nodes recorded: sums
// a broadcast gradient down to the recorded shape and casts it to the recorded dtype.
// A slot with no recorded metadata (a hand-made node, an undefined output) is not checked.
void validate_outputs(const edge_list& edges, variable_list& grads, const std::string& fn_name) {
  const std::string prefix = fn_name.empty() ? "" : "Function " + fn_name + " returned an ";
  TG_CHECK(grads.size() == edges.size(), prefix, "invalid number of gradients - expected ", edges.size(), ", but got ",
           grads.size());
  for (size_t i = 0; i < edges.size(); ++i) {
    const Edge& edge = edges[i];
    Tensor& grad = grads[i];
    if (!edge.is_valid() || !grad.defined() || edge.input_nr >= edge.function->num_inputs()) continue;
    const InputMetadata& metadata = edge.function->input_metadata(edge.input_nr);
    if (metadata.dtype == ScalarType::Undefined) continue;
    if (grad.sizes() != metadata.sizes.ref()) {
      TG_CHECK(is_expandable_to(metadata.sizes, grad.sizes()), prefix, "invalid gradient at index ", i, " - got ",
               grad.sizes(), " but expected shape compatible with ", metadata.sizes);
      grad = sum_to(grad, metadata.sizes);
    }
    if (grad.scalar_type() != metadata.dtype) grad = grad.to(metadata.dtype);
    TG_CHECK(grad.device() == metadata.device, prefix, "invalid gradient at index ", i, " - expected device ",
             metadata.device, " but got ", grad.device());
  }
}

// Runs fn on its gradients and hands its outputs to the next nodes.
void evaluate_function(GraphTask& task, const std::shared_ptr<Node>& fn, InputBuffer&& buffer, ReadyQueue& queue) {
  // The node runs on the stream its forward ran on, once its gradients are ready there; its
  // outputs are handed on from that stream too. Nothing happens for CPU nodes.
  const std::optional<Stream> stream = fn->stream();
  const OptionalStreamGuard stream_guard(stream);
  buffer.wait_ready(stream);
  variable_list grads = InputBuffer::variables(std::move(buffer));
  bool hooks_ran = false;
  if (task.pruned) {
    const ExecInfo& info = task.exec_info.at(fn.get());
    if (!info.captures.empty() || !info.needed) {
      {
        std::lock_guard<std::mutex> lock(fn->mutex());
        grads = fn->call_tensor_pre_hooks(std::move(grads));
      }
      hooks_ran = true;
      for (const auto& [input_nr, index] : info.captures) {
        task.captured[index] = input_nr < grads.size() ? grads[input_nr] : Tensor();
      }
      if (stream.has_value() && !info.captures.empty()) task.leaf_streams.insert(*stream);
    }
    if (!info.needed) return;
  }

  variable_list outputs;
  {
    // See Note [Thread safety of the engine] in docs/autograd.md.
    std::lock_guard<std::mutex> lock(fn->mutex());
    if (!hooks_ran) grads = fn->call_tensor_pre_hooks(std::move(grads));
    outputs = (*fn)(std::move(grads));
    if (!task.keep_graph) fn->release_variables();
  }
  const edge_list& edges = fn->next_edges();
  validate_outputs(edges, outputs, fn->name());
  if (AnomalyMode::is_enabled()) {
    for (size_t i = 0; i < outputs.size(); ++i) check_gradient_is_finite(*fn, i, outputs[i]);
  }
  if (stream.has_value() && dynamic_cast<AccumulateGrad*>(fn.get()) != nullptr) task.leaf_streams.insert(*stream);

  const std::optional<Stream>& producer = stream;
  for (size_t i = 0; i < edges.size(); ++i) {
    const Edge& next = edges[i];
    if (!next.is_valid()) continue;
    Node* next_fn = next.function.get();
    auto dependency = task.dependencies.find(next_fn);
    TG_INTERNAL_ASSERT(dependency != task.dependencies.end(), "dependency not found for ", next_fn->name());
    const bool ready = --dependency->second == 0;
    if (ready) task.dependencies.erase(dependency);

    auto waiting = task.not_ready.find(next_fn);
    if (waiting == task.not_ready.end()) {
      if (task.pruned) {
        auto info = task.exec_info.find(next_fn);
        if (info == task.exec_info.end() || !info->second.should_execute()) continue;
      }
      InputBuffer next_buffer(next_fn->num_inputs());
      next_buffer.add(next.input_nr, std::move(outputs[i]), producer, next_fn->stream());
      if (ready) {
        queue.push(NodeTask{next.function, std::move(next_buffer)});
      } else {
        task.not_ready.emplace(next_fn, std::move(next_buffer));
      }
    } else {
      waiting->second.add(next.input_nr, std::move(outputs[i]), producer, next_fn->stream());
      if (ready) {
        queue.push(NodeTask{next.function, std::move(waiting->second)});
        task.not_ready.erase(waiting);
      }
    }
  }
}

}  // namespace

Engine& Engine::get_default_engine() {
  static Engine engine;
  return engine;
}

variable_list Engine::execute(const edge_list& roots, const variable_list& grad_outputs, bool keep_graph,
                              bool create_graph, const edge_list& outputs, bool accumulate_grad) {
  TG_CHECK(roots.size() == grad_outputs.size(), "[backward] got ", roots.size(), " roots but ", grad_outputs.size(),
           " gradients");
  variable_list root_grads = grad_outputs;
  validate_outputs(roots, root_grads, "");

  // Nodes record their own backward only with create_graph.
  AutoGradMode grad_mode(create_graph);
  auto graph_root = std::make_shared<GraphRoot>(roots, std::move(root_grads));
  GraphTask task;
  task.keep_graph = keep_graph;
  compute_dependencies(graph_root.get(), task);
  if (!outputs.empty()) init_to_execute(graph_root.get(), outputs, accumulate_grad, task);

  ReadyQueue queue;
  queue.push(NodeTask{graph_root, InputBuffer(0)});
  while (!queue.empty()) {
    NodeTask next = queue.pop();
    evaluate_function(task, next.fn, std::move(next.inputs), queue);
  }
  // The caller may read .grad() or the returned gradients on its current streams at once.
  for (const Stream& leaf_stream : task.leaf_streams) {
    const Stream caller_stream = device_guard_impl(leaf_stream.device().type())->current_stream(leaf_stream.device());
    if (caller_stream == leaf_stream) continue;
    Event event(leaf_stream.device().type());
    event.record(leaf_stream);
    event.block(caller_stream);
  }
  return std::move(task.captured);
}

}  // namespace tg::autograd
