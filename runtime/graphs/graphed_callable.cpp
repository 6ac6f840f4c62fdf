#include "graphs/graphed_callable.h"

#include <memory>

#include <tensorgen/tensorgen.h>

#include "autograd/autograd.h"
#include "autograd/node.h"
#include "autograd/variable_type_utils.h"
#include "core/error.h"
#include "graphs/cuda_graph_backend.h"
#include "graphs/graph.h"

namespace tg::graphs {

namespace {

struct GraphedState {
  explicit GraphedState(Device device) : forward(device), backward(device) {}
  std::vector<Tensor> static_inputs;
  std::vector<size_t> differentiable_inputs;  // indices of inputs that require grad
  std::vector<Tensor> static_outputs;
  std::vector<Tensor> static_grad_outputs;
  std::vector<Tensor> static_grad_inputs;    // per differentiable input
  Graph forward;
  Graph backward;
};

// The node whose backward replays the backward graph.
class GraphedBackward final : public autograd::Node {
 public:
  explicit GraphedBackward(std::shared_ptr<GraphedState> state) : state_(std::move(state)) {}
  std::string name() const override { return "GraphedBackward"; }
  autograd::variable_list apply(autograd::variable_list&& grads) override {
    for (size_t i = 0; i < state_->static_grad_outputs.size(); ++i) {
      if (i < grads.size() && grads[i].defined()) {
        state_->static_grad_outputs[i].copy_(grads[i]);
      } else {
        state_->static_grad_outputs[i].zero_();
      }
    }
    state_->backward.replay();
    autograd::variable_list result;
    // Copies: the engine may keep a gradient as .grad, and the next replay rewrites the static one.
    for (const Tensor& g : state_->static_grad_inputs) result.push_back(g.defined() ? g.clone() : g);
    return result;
  }

 private:
  std::shared_ptr<GraphedState> state_;
};

std::vector<Tensor> differentiable(const std::vector<Tensor>& tensors) {
  std::vector<Tensor> result;
  for (const Tensor& t : tensors) {
    if (t.defined() && t.requires_grad()) result.push_back(t);
  }
  return result;
}

std::vector<Tensor> input_grads(GraphedState& s, const std::vector<Tensor>& outputs,
                                const std::vector<Tensor>& grad_outputs) {
  std::vector<Tensor> inputs;
  for (size_t i : s.differentiable_inputs) inputs.push_back(s.static_inputs[i]);
  if (inputs.empty()) return {};
  return autograd::grad(outputs, inputs, grad_outputs, /*retain_graph=*/true, /*create_graph=*/false,
                        /*allow_unused=*/true);
}

}  // namespace

TreeFunction make_graphed_callables(TreeFunction fn, const std::vector<Tensor>& sample_inputs, int warmup_runs) {
  TG_CHECK(fn != nullptr, "[make_graphed_callables] the function is empty");
  TG_CHECK_VALUE(warmup_runs >= 1, "[make_graphed_callables] warmup_runs must be at least 1, got ", warmup_runs);
  for (size_t i = 0; i < sample_inputs.size(); ++i) {
    TG_CHECK(sample_inputs[i].defined(), "[make_graphed_callables] sample input ", i, " is an undefined tensor");
    TG_CHECK(sample_inputs[i].device() == sample_inputs[0].device(), "[make_graphed_callables] sample input ", i,
             " is on ", sample_inputs[i].device(), " but sample input 0 on ", sample_inputs[0].device(),
             ": the graphs of one callable record work on one device");
  }
  // CPU graphs, or CUDA graphs captured on a side stream (see Note [CUDA graph capture]).
  const Device device = sample_inputs.empty() ? Device(DeviceType::CPU) : sample_inputs[0].device();
  auto s = std::make_shared<GraphedState>(device);
  const detail::SideStreamScope side_stream(device);
  for (size_t i = 0; i < sample_inputs.size(); ++i) {
    const Tensor& sample = sample_inputs[i];
    Tensor input = sample.detach().clone();
    if (sample.requires_grad()) {
      input.requires_grad_();
      s->differentiable_inputs.push_back(i);
    }
    s->static_inputs.push_back(input);
  }
  for (int run = 0; run < warmup_runs; ++run) {
    std::vector<Tensor> outputs = differentiable(fn(s->static_inputs));
    std::vector<Tensor> ones;
    for (const Tensor& o : outputs) ones.push_back(tg::ones_like(o));
    if (!outputs.empty()) input_grads(*s, outputs, ones);
  }
  s->forward.capture_begin();
  s->static_outputs = fn(s->static_inputs);
  s->forward.capture_end();
  std::vector<Tensor> outputs = differentiable(s->static_outputs);
  for (const Tensor& o : outputs) s->static_grad_outputs.push_back(tg::zeros_like(o));
  s->backward.capture_begin(s->forward.pool());
  if (!outputs.empty()) s->static_grad_inputs = input_grads(*s, outputs, s->static_grad_outputs);
  s->backward.capture_end();

  return [s](const std::vector<Tensor>& inputs) {
    TG_CHECK(inputs.size() == s->static_inputs.size(), "[make_graphed_callables] expected ",
             s->static_inputs.size(), " inputs (as the samples), got ", inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      TG_CHECK(inputs[i].sizes() == s->static_inputs[i].sizes() &&
                   inputs[i].scalar_type() == s->static_inputs[i].scalar_type(),
               "[make_graphed_callables] input ", i, " has dtype ", inputs[i].scalar_type(), " and sizes ",
               inputs[i].sizes(), "; the graphs were recorded for ", s->static_inputs[i].scalar_type(), " ",
               s->static_inputs[i].sizes());
      NoGradGuard no_grad;
      if (inputs[i].data_ptr() != s->static_inputs[i].data_ptr()) s->static_inputs[i].copy_(inputs[i]);
    }
    s->forward.replay();
    std::vector<Tensor> result;
    for (const Tensor& o : s->static_outputs) result.push_back(o.detach());
    bool needs_grad = GradMode::is_enabled() && !s->differentiable_inputs.empty();
    if (needs_grad) {
      std::vector<Tensor> with_history;
      for (size_t k = 0; k < result.size(); ++k) {
        if (s->static_outputs[k].requires_grad()) with_history.push_back(result[k]);
      }
      auto node = std::make_shared<GraphedBackward>(s);
      autograd::edge_list edges;
      for (size_t i : s->differentiable_inputs) autograd::detail::append_edges(edges, inputs[i]);
      node->set_next_edges(std::move(edges));
      autograd::set_history(with_history, node);
    }
    return result;
  };
}

}  // namespace tg::graphs
