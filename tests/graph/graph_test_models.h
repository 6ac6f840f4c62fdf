// Small models written with plain tensor operations, for the graph tests and bench_graph:
// an MLP (forward and a training step through autograd) and one transformer block.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "core/allocator.h"
#include "tensorgen/tensorgen.h"

namespace tg::graph_test {

// Parameters first, then the data: what the traced functions take.
struct MlpShape {
  int64_t in = 32, hidden = 64, out = 10;
};

inline std::vector<Tensor> mlp_params(const MlpShape& s, bool requires_grad) {
  manual_seed(42);
  std::vector<Tensor> p = {randn({s.hidden, s.in}) * 0.1, randn({s.hidden}) * 0.1, randn({s.out, s.hidden}) * 0.1,
                           randn({s.out}) * 0.1};
  for (Tensor& t : p) t.requires_grad_(requires_grad);
  return p;
}
inline const std::vector<std::string> kMlpParamNames = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};

// inputs: fc1.weight, fc1.bias, fc2.weight, fc2.bias, x
inline std::vector<Tensor> mlp_forward(const std::vector<Tensor>& in) {
  Tensor h = relu(linear(in[4], in[0], in[1]));
  return {linear(h, in[2], in[3])};
}

// inputs: the four parameters (requiring grad), x, target. Returns the loss and the
// parameters' gradients: a whole training step's computation, backward included.
inline std::vector<Tensor> mlp_train_step(const std::vector<Tensor>& in) {
  Tensor y = mlp_forward(in)[0];
  Tensor loss = mse_loss(y, in[5]);
  std::vector<Tensor> grads = autograd::grad({loss}, {in[0], in[1], in[2], in[3]});
  grads.insert(grads.begin(), loss);
  return grads;
}

// One pre-norm transformer block, single head. inputs: ln1.w, ln1.b, wq, wk, wv, wo, ln2.w,
// ln2.b, w1, b1, w2, b2, x[batch, seq, dim].
inline std::vector<Tensor> transformer_params(int64_t dim, int64_t ff) {
  manual_seed(7);
  const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
  return {ones({dim}), zeros({dim}), randn({dim, dim}) * scale, randn({dim, dim}) * scale,
          randn({dim, dim}) * scale, randn({dim, dim}) * scale, ones({dim}), zeros({dim}),
          randn({dim, ff}) * scale, zeros({ff}), randn({ff, dim}) * scale, zeros({dim})};
}

inline std::vector<Tensor> transformer_block(const std::vector<Tensor>& in) {
  const Tensor& x = in[12];
  const int64_t dim = x.size(-1);
  Tensor a = layer_norm(x, {dim}, in[0], in[1]);
  Tensor q = matmul(a, in[2]), k = matmul(a, in[3]), v = matmul(a, in[4]);
  Tensor scores = matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(dim)));
  Tensor h = x + matmul(matmul(softmax(scores, -1), v), in[5]);
  Tensor b = layer_norm(h, {dim}, in[6], in[7]);
  Tensor f = gelu(matmul(b, in[8]) + in[9]);
  return {h + matmul(f, in[10]) + in[11]};
}

// Same dtype, shape and bytes.
inline bool bitwise_equal(const Tensor& a, const Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  Tensor x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.data_ptr(), y.data_ptr(), x.nbytes()) == 0;
}

// Counts what the CPU allocator hands out while installed.
class CountingAllocator final : public Allocator {
 public:
  CountingAllocator() : inner_(get_allocator(DeviceType::CPU)) { set_allocator(DeviceType::CPU, this); }
  ~CountingAllocator() override { set_allocator(DeviceType::CPU, inner_); }
  CountingAllocator(const CountingAllocator&) = delete;
  CountingAllocator& operator=(const CountingAllocator&) = delete;
  DataPtr allocate(size_t nbytes) override {
    bytes += static_cast<int64_t>(nbytes);
    calls += 1;
    return inner_->allocate(nbytes);
  }
  int64_t bytes = 0;
  int64_t calls = 0;

 private:
  Allocator* inner_;
};

}  // namespace tg::graph_test
