// bench_graph's LibTorch column: graph_test_models.h's models in LibTorch eager.
#include <torch/torch.h>

#include <cmath>
#include <functional>

#include "bench_graph_peer.h"
#include "bench_util.h"

namespace bench::graph_peer {
namespace {

using torch::Tensor;

std::vector<Tensor> mlp_forward(const std::vector<Tensor>& in) {
  Tensor h = torch::relu(torch::linear(in[4], in[0], in[1]));
  return {torch::linear(h, in[2], in[3])};
}

std::vector<Tensor> mlp_train_step(const std::vector<Tensor>& in) {
  Tensor loss = torch::mse_loss(mlp_forward(in)[0], in[5]);
  std::vector<Tensor> grads = torch::autograd::grad({loss}, {in[0], in[1], in[2], in[3]});
  grads.insert(grads.begin(), loss);
  return grads;
}

std::vector<Tensor> transformer_block(const std::vector<Tensor>& in) {
  const Tensor& x = in[12];
  const int64_t dim = x.size(-1);
  Tensor a = torch::layer_norm(x, {dim}, in[0], in[1]);
  Tensor q = torch::matmul(a, in[2]), k = torch::matmul(a, in[3]), v = torch::matmul(a, in[4]);
  Tensor scores = torch::matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(dim)));
  Tensor h = x + torch::matmul(torch::matmul(torch::softmax(scores, -1), v), in[5]);
  Tensor b = torch::layer_norm(h, {dim}, in[6], in[7]);
  Tensor f = torch::gelu(torch::matmul(b, in[8]) + in[9]);
  return {h + torch::matmul(f, in[10]) + in[11]};
}

}  // namespace

double libtorch_us(const std::string& model, const std::vector<HostTensor>& inputs, long iterations, int rounds,
                   int threads, std::string* note) {
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> fn;
  bool training = false;
  if (model == "mlp_forward") {
    fn = mlp_forward;
  } else if (model == "mlp_train_step") {
    fn = mlp_train_step;
    training = true;
  } else if (model == "transformer_block") {
    fn = transformer_block;
  } else {
    *note = "no LibTorch version of " + model;
    return -1;
  }
  torch::set_num_threads(threads);
  std::vector<Tensor> in;
  for (size_t k = 0; k < inputs.size(); ++k) {
    Tensor t = torch::from_blob(const_cast<float*>(inputs[k].data.data()), inputs[k].sizes).clone();
    if (training && k < 4) t.requires_grad_(true);  // the parameters, as in graph_test_models.h
    in.push_back(t);
  }
  // No NoGradGuard for inference: tensorgen's eager column runs without one too (its inputs
  // simply do not require grad), so both pay what an autograd-enabled call costs.
  for (int warm = 0; warm < 2; ++warm) do_not_optimize(fn(in));
  double best = 1e300;
  for (int r = 0; r < rounds; ++r) {
    best = std::min(best, best_ns_per_call(iterations, 1, [&] { do_not_optimize(fn(in)); }) / 1e3);
  }
  return best;
}

}  // namespace bench::graph_peer
