#include "autograd/autograd.h"

#include "autograd/autograd_meta.h"
#include "autograd/engine.h"
#include "tensorgen/ops.h"

namespace tg::autograd {

namespace {

Tensor implicit_grad(const Tensor& output) {
  TG_CHECK(output.numel() == 1, "grad can be implicitly created only for scalar outputs");
  TG_CHECK(output.is_floating_point(), "grad can be computed only for real scalar outputs but got ",
           output.scalar_type());
  return tg::ones(output.sizes(), output.options());
}

// One gradient per output that requires grad: the given one, or 1 for a one-element output.
variable_list make_grads(const variable_list& outputs, const variable_list& grad_outputs) {
  variable_list grads;
  grads.reserve(outputs.size());
  if (grad_outputs.empty()) {
    for (const Tensor& output : outputs) {
      if (output.requires_grad()) grads.push_back(implicit_grad(output));
    }
    return grads;
  }
  TG_CHECK(outputs.size() == grad_outputs.size(), "got ", outputs.size(), " tensors and ", grad_outputs.size(),
           " gradients");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& output = outputs[i];
    const Tensor& grad = grad_outputs[i];
    if (!grad.defined()) {
      if (output.requires_grad()) grads.push_back(implicit_grad(output));
      continue;
    }
    TG_CHECK(grad.sizes() == output.sizes(), "Mismatch in shape: grad_output[", i, "] has a shape of ", grad.sizes(),
             " and output[", i, "] has a shape of ", output.sizes(), ".");
    // A floating gradient of another width is cast by the engine, as in PyTorch; an integral
    // or bool one cannot be a gradient of a floating output and would be truncated silently.
    TG_CHECK_TYPE(grad.is_floating_point() == output.is_floating_point(), "[backward] Mismatch in dtype: ",
                  "grad_output[", i, "] has a dtype of ", grad.scalar_type(), " and output[", i,
                  "] has a dtype of ", output.scalar_type(), "; a gradient must be floating point like its output");
    grads.push_back(grad);
  }
  return grads;
}

variable_list run_backward(const variable_list& outputs, const variable_list& grad_outputs, bool keep_graph,
                           bool create_graph, const variable_list& inputs, bool allow_unused, bool accumulate_grad) {
  variable_list grads = make_grads(outputs, grad_outputs);
  edge_list roots;
  roots.reserve(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    Edge edge = impl::gradient_edge(outputs[i]);
    TG_CHECK(edge.is_valid(), "element ", i, " of tensors does not require grad and does not have a grad_fn");
    roots.push_back(std::move(edge));
  }
  edge_list output_edges;
  output_edges.reserve(inputs.size());
  for (const Tensor& input : inputs) {
    TG_CHECK(input.requires_grad(), "One of the differentiated Tensors does not require grad");
    // backward(inputs=...) on a non-leaf stores its gradient in .grad(), as PyTorch does.
    if (accumulate_grad) input.retain_grad();
    output_edges.push_back(impl::gradient_edge(input));
  }
  variable_list results = Engine::get_default_engine().execute(roots, grads, keep_graph, create_graph, output_edges,
                                                               accumulate_grad);
  if (!accumulate_grad && !allow_unused) {
    for (const Tensor& result : results) {
      TG_CHECK(result.defined(),
               "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=true "
               "if this is the desired behavior.");
    }
  }
  return results;
}

}  // namespace

void backward(const variable_list& tensors, const variable_list& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph, const variable_list& inputs) {
  run_backward(tensors, grad_tensors, retain_graph.value_or(create_graph), create_graph, inputs,
               /*allow_unused=*/true, /*accumulate_grad=*/true);
}

variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  TG_CHECK(!inputs.empty(), "grad requires at least one input");
  return run_backward(outputs, grad_outputs, retain_graph.value_or(create_graph), create_graph, inputs, allow_unused,
                      /*accumulate_grad=*/false);
}

}  // namespace tg::autograd
