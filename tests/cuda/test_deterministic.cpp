// tg::use_deterministic_algorithms(true): the CUDA kernels that add through atomics give the
// same bits on every run, and here the CPU's bits (Note [Deterministic atomic sums]).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include <tensorgen/tensorgen.h>

#include "cuda_test_helpers.h"

using cuda_test::on_cpu;
using cuda_test::on_gpu;

namespace {

// Values of many magnitudes, so that the order of a float sum changes its last bits.
tg::Tensor uneven_values(int64_t n) {
  tg::Tensor t = tg::empty({n}, tg::TensorOptions().dtype(tg::kFloat));
  float* data = t.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<float>(std::sin(static_cast<double>(i)) * std::pow(10.0, i % 7));
  return t;
}

bool same_bits(const tg::Tensor& a, const tg::Tensor& b) {
  const tg::Tensor x = on_cpu(a).contiguous(), y = on_cpu(b).contiguous();
  return x.sizes() == y.sizes() && std::memcmp(x.data_ptr(), y.data_ptr(), static_cast<size_t>(x.nbytes())) == 0;
}

struct DeterministicScope {
  DeterministicScope() { tg::use_deterministic_algorithms(true); }
  ~DeterministicScope() { tg::use_deterministic_algorithms(false); }
};

}  // namespace

TEST_CASE("deterministic algorithms: the switch") {
  CHECK_FALSE(tg::are_deterministic_algorithms_enabled());
  {
    const DeterministicScope scope;
    CHECK(tg::are_deterministic_algorithms_enabled());
  }
  CHECK_FALSE(tg::are_deterministic_algorithms_enabled());
}

TEST_CASE("deterministic algorithms: scatter_add and index_add of floats give the CPU's bits") {
  // More elements than one pass of the grid-stride loop covers, all into 3 slots.
  const int64_t n = 9000;
  const tg::Tensor src = uneven_values(n);
  tg::Tensor index = tg::empty({n}, tg::TensorOptions().dtype(tg::kLong));
  for (int64_t i = 0; i < n; ++i) index.data_ptr<int64_t>()[i] = (i * 7) % 3;
  const tg::Tensor base = tg::zeros({3}, tg::TensorOptions().dtype(tg::kFloat));
  const tg::Tensor cpu_scatter = tg::scatter_add(base, 0, index, src);
  const tg::Tensor cpu_index_add = tg::index_add(base, 0, index, src);
  const DeterministicScope scope;
  const tg::Tensor gpu_scatter = tg::scatter_add(on_gpu(base), 0, on_gpu(index), on_gpu(src));
  const tg::Tensor gpu_index_add = tg::index_add(on_gpu(base), 0, on_gpu(index), on_gpu(src));
  CHECK(same_bits(cpu_scatter, gpu_scatter));
  CHECK(same_bits(cpu_index_add, gpu_index_add));
  // And again: the same bits on every run.
  CHECK(same_bits(gpu_scatter, tg::scatter_add(on_gpu(base), 0, on_gpu(index), on_gpu(src))));
}

TEST_CASE("deterministic algorithms: embedding and max_pool2d backward repeat their bits") {
  const DeterministicScope scope;
  tg::Tensor indices = tg::empty({600}, tg::TensorOptions().dtype(tg::kLong));
  for (int64_t i = 0; i < 600; ++i) indices.data_ptr<int64_t>()[i] = i % 4;
  const tg::Tensor grad = on_gpu(uneven_values(600 * 8).reshape({600, 8}));
  const tg::Tensor first = tg::embedding_dense_backward(grad, on_gpu(indices), 4, -1, false);
  const tg::Tensor second = tg::embedding_dense_backward(grad, on_gpu(indices), 4, -1, false);
  CHECK(same_bits(first, second));
  cuda_test::check_same(tg::embedding_dense_backward(on_cpu(grad), indices, 4, -1, false), first,
                        "embedding backward", {1e-3, 1e-5});
}
