// The nn operators on CUDA against the CPU (docs/nn-ops.md): activations, softmax, var/std,
// cumsum, topk, indexing, cat, tril/triu, losses, layer norm, embedding, dropout, convolution,
// pooling and the fused optimizer steps; gradients through autograd where the operator has a
// derivative, and a training step of the MLP example.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "cuda_test_helpers.h"

using cuda_test::check_same;
using cuda_test::compare;
using cuda_test::on_cpu;
using cuda_test::on_gpu;
using cuda_test::sample;
using cuda_test::Tolerance;

namespace {

constexpr tg::ScalarType kFloating[] = {tg::kDouble, tg::kFloat, tg::kHalf, tg::kBFloat16};
constexpr tg::ScalarType kAll[] = {tg::kDouble, tg::kFloat, tg::kHalf, tg::kBFloat16, tg::kLong,
                                   tg::kInt,    tg::kShort, tg::kChar, tg::kByte,     tg::kBool};

std::string name_of(const std::string& op, tg::ScalarType dtype) { return op + " on " + std::string(tg::to_string(dtype)); }

using Function = std::function<tg::Tensor(const std::vector<tg::Tensor>&)>;

// f's result, and the gradients of sum(f * r) (r fixed, varied values) with respect to the
// inputs listed in `differentiable`, on the CPU and on CUDA.
void compare_with_grad(const std::string& what, const std::vector<tg::Tensor>& inputs,
                       const std::vector<size_t>& differentiable, const Function& f, Tolerance tolerance) {
  const auto run = [&](bool gpu) {
    std::vector<tg::Tensor> in;
    for (const tg::Tensor& t : inputs) in.push_back(gpu ? on_gpu(t) : t.clone());
    for (size_t i : differentiable) in[i].requires_grad_();
    const tg::Tensor out = f(in);
    const tg::Tensor r = tg::tanh(tg::arange(0, out.numel(), 1, tg::TensorOptions().dtype(tg::kDouble)) * 0.37 - 3.0);
    (out * r.reshape(out.sizes()).to(out.device(), out.scalar_type())).sum().backward();
    std::vector<tg::Tensor> results{out.detach()};
    for (size_t i : differentiable) results.push_back(in[i].grad());
    return results;
  };
  const std::vector<tg::Tensor> cpu = run(false), gpu = run(true);
  check_same(cpu[0], gpu[0], what + ": forward", tolerance);
  for (size_t k = 0; k < differentiable.size(); ++k) {
    check_same(cpu[k + 1], gpu[k + 1], what + ": gradient of input " + std::to_string(differentiable[k]), tolerance);
  }
}

// An int64 tensor of `sizes` whose values run through [0, bound) in a scrambled order.
tg::Tensor cycling_indices(const std::vector<int64_t>& sizes, int64_t bound) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<int64_t> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = (i * 7 + 3) % bound;
  return tg::tensor(values).reshape(sizes);
}

Tolerance loose(tg::ScalarType dtype) {
  return dtype == tg::kFloat ? Tolerance{1e-4, 1e-4} : cuda_test::tolerance_for(dtype);
}

}  // namespace

TEST_CASE("gelu and silu and their gradients agree with the CPU") {
  for (tg::ScalarType dtype : kFloating) {
    const tg::Tensor x = sample({7, 130}, dtype) * 3.0;
    for (const char* approximate : {"none", "tanh"}) {
      compare_with_grad(name_of(std::string("gelu ") + approximate, dtype), {x}, {0},
                        [approximate](const auto& in) { return tg::gelu(in[0], approximate); }, loose(dtype));
    }
    compare_with_grad(name_of("silu", dtype), {x}, {0}, [](const auto& in) { return tg::silu(in[0]); }, loose(dtype));
    compare(name_of("gelu transposed", dtype), {x}, [](const auto& in) { return tg::gelu(in[0].t()); }, loose(dtype));
  }
  compare("gelu on int64 raises", {sample({3}, tg::kLong)}, [](const auto& in) { return tg::gelu(in[0]); });
  CHECK_THROWS_AS(tg::gelu(on_gpu(sample({3}, tg::kFloat)), "fast"), tg::ValueError);
}

TEST_CASE("softmax and log_softmax agree with the CPU along every dim, with gradients") {
  // Short rows (a warp per row), long rows (a block per row), other dims (a thread per column).
  const std::vector<std::vector<int64_t>> shapes = {{5, 37}, {3, 4000}, {4, 6, 9}};
  for (tg::ScalarType dtype : kFloating) {
    for (const auto& shape : shapes) {
      const tg::Tensor x = sample(shape, dtype) * 4.0;
      for (int64_t dim = -1; dim >= -static_cast<int64_t>(shape.size()); --dim) {
        const std::string where = " dim " + std::to_string(dim) + " of " + std::to_string(shape.back());
        compare_with_grad(name_of("softmax" + where, dtype), {x}, {0},
                          [dim](const auto& in) { return tg::softmax(in[0], dim); }, loose(dtype));
        compare_with_grad(name_of("log_softmax" + where, dtype), {x}, {0},
                          [dim](const auto& in) { return tg::log_softmax(in[0], dim); }, loose(dtype));
      }
    }
  }
  const tg::Tensor special = tg::tensor<float>({1, -INFINITY, 3, NAN, -INFINITY, -INFINITY}).reshape({2, 3});
  compare("softmax with -inf and NaN", {special}, [](const auto& in) { return tg::softmax(in[0], 1); });
  compare("log_softmax of an empty tensor", {tg::ones({0, 3})}, [](const auto& in) { return tg::log_softmax(in[0], 1); });
}

TEST_CASE("var and std agree with the CPU") {
  for (tg::ScalarType dtype : kFloating) {
    const tg::Tensor x = sample({6, 50, 7}, dtype) + 10.0;
    const Tolerance tolerance = loose(dtype);
    compare(name_of("var", dtype), {x}, [](const auto& in) { return tg::var(in[0]); }, tolerance);
    compare(name_of("std dims", dtype), {x}, [](const auto& in) { return tg::std(in[0], {{0, 2}}, true, true); },
            tolerance);
    compare(name_of("var correction 0", dtype), {x},
            [](const auto& in) { return tg::var(in[0], {{1}}, tg::Scalar(0)); }, tolerance);
    compare(name_of("std correction 2 of the transpose", dtype), {x},
            [](const auto& in) { return tg::std(in[0].transpose(0, 2), {{2}}, tg::Scalar(2)); }, tolerance);
  }
  compare("var of one element (divisor 0)", {tg::ones({1})}, [](const auto& in) { return tg::var(in[0]); });
  compare("var of a long row", {sample({1 << 20}, tg::kFloat)}, [](const auto& in) { return tg::var(in[0]); },
          Tolerance{1e-4, 1e-4});
  compare("var of int64 raises", {sample({4}, tg::kLong)}, [](const auto& in) { return tg::var(in[0]); });
}

TEST_CASE("cumsum and topk agree with the CPU") {
  for (tg::ScalarType dtype : kAll) {
    const tg::Tensor x = sample({5, 40, 3}, dtype);
    for (int64_t dim : {0, 1, 2}) {
      compare(name_of("cumsum dim " + std::to_string(dim), dtype), {x},
              [dim](const auto& in) { return tg::cumsum(in[0], dim); }, Tolerance{5e-2, 1e-2});
      compare(name_of("topk values dim " + std::to_string(dim), dtype), {x},
              [dim](const auto& in) { return std::get<0>(tg::topk(in[0], 3, dim)); });
      compare(name_of("topk smallest indices dim " + std::to_string(dim), dtype), {x},
              [dim](const auto& in) { return std::get<1>(tg::topk(in[0], 2, dim, false)); });
    }
  }
  compare("cumsum of int32 into int64", {sample({100}, tg::kInt)},
          [](const auto& in) { return tg::cumsum(in[0], 0, tg::kLong); });
  // Ties go to the lower index; NaN is the largest value.
  const tg::Tensor ties = tg::tensor<float>({2, 5, NAN, 5, 1, NAN, 2});
  for (bool largest : {true, false}) {
    compare("topk ties and NaN, values", {ties},
            [largest](const auto& in) { return std::get<0>(tg::topk(in[0], 7, 0, largest)); });
    compare("topk ties and NaN, indices", {ties},
            [largest](const auto& in) { return std::get<1>(tg::topk(in[0], 7, 0, largest)); });
  }
  compare("topk of a long row", {sample({3, 5000}, tg::kFloat)},
          [](const auto& in) { return std::get<1>(tg::topk(in[0], 10)); });
}

TEST_CASE("index_select, index_add, gather, scatter_add and masked_fill agree with the CPU") {
  const tg::Tensor index = tg::tensor<int64_t>({3, 0, 3, 1, 3});  // repeated indices add up
  for (tg::ScalarType dtype : kAll) {
    const tg::Tensor x = sample({4, 6, 5}, dtype), source = sample({4, 5, 5}, dtype);
    compare(name_of("index_select", dtype), {x, index}, [](const auto& in) { return tg::index_select(in[0], 1, in[1]); });
    compare(name_of("index_select dim 0 of a transpose", dtype), {x, index},
            [](const auto& in) { return tg::index_select(in[0].transpose(0, 2), 0, in[1].narrow(0, 0, 3)); });
    compare(name_of("index_add", dtype), {x, index, source},
            [](const auto& in) { return tg::index_add(in[0], 1, in[1], in[2], 2); }, Tolerance{5e-2, 1e-2});
    const tg::Tensor gather_index = cycling_indices({4, 3, 5}, 6);
    compare(name_of("gather", dtype), {x, gather_index}, [](const auto& in) { return tg::gather(in[0], 1, in[1]); });
    compare(name_of("scatter_add", dtype), {x, gather_index, sample({4, 3, 5}, dtype)},
            [](const auto& in) { return tg::scatter_add(in[0], 1, in[1], in[2]); }, Tolerance{5e-2, 1e-2});
    compare(name_of("masked_fill", dtype), {x, sample({6, 1}, tg::kBool)},
            [](const auto& in) { return tg::masked_fill(in[0], in[1], 1); });
  }
  const tg::Tensor x = sample({4, 6}, tg::kDouble);
  compare_with_grad("index_select gradient (index_add)", {x, index}, {0},
                    [](const auto& in) { return tg::index_select(in[0], 1, in[1]); }, Tolerance{1e-10, 1e-10});
  compare_with_grad("gather gradient (scatter_add)", {x, tg::tensor<int64_t>({0, 5, 5, 2}).reshape({1, 4})}, {0},
                    [](const auto& in) { return tg::gather(in[0], 1, in[1].expand({4, 4})); }, Tolerance{1e-10, 1e-10});
  // Index errors are the CPU's.
  compare("index_select out of range", {x, tg::tensor<int64_t>({6})},
          [](const auto& in) { return tg::index_select(in[0], 1, in[1]); });
  compare("gather out of range", {x, tg::tensor<int64_t>({-1}).reshape({1, 1})},
          [](const auto& in) { return tg::gather(in[0], 1, in[1]); });
  CHECK_THROWS_AS(tg::index_select(on_gpu(x), 1, on_gpu(tg::tensor<int64_t>({7}))), tg::IndexError);
}

TEST_CASE("index_fill, index_copy and scatter agree with the CPU and refuse mixed devices") {
  // Repeated positions: the last write wins on both backends (Note [Writes as clear and add]).
  const tg::Tensor rows = tg::tensor<int64_t>({2, 0, 2, -1}), copy_rows = tg::tensor<int64_t>({2, 0, 2, 3});
  const tg::Tensor scatter_index = tg::tensor<int64_t>({1, 1, 0, 3, 1, 2, 1, 0}).reshape({2, 4});
  for (tg::ScalarType dtype : {tg::kDouble, tg::kFloat, tg::kHalf, tg::kLong, tg::kBool}) {
    const tg::Tensor x = sample({4, 5}, dtype), source = sample({4, 5}, dtype), src = sample({2, 4}, dtype);
    compare(name_of("index_fill", dtype), {x, rows}, [](const auto& in) { return tg::index_fill(in[0], 0, in[1], 1); });
    compare(name_of("index_fill_ of a 0-dim index", dtype), {x, tg::tensor<int64_t>({-2}).reshape({})},
            [](const auto& in) { return in[0].clone().index_fill_(1, in[1], 0); });
    compare(name_of("index_copy", dtype), {x, copy_rows, source},
            [](const auto& in) { return tg::index_copy(in[0], 0, in[1], in[2]); });
    compare(name_of("index_copy_ along dim 1", dtype), {x, tg::tensor<int64_t>({4, 4, 1, 4}), source},
            [](const auto& in) { return in[0].clone().index_copy_(1, in[1], in[2]); });
    compare(name_of("scatter", dtype), {x, scatter_index, src},
            [](const auto& in) { return tg::scatter(in[0], 1, in[1], in[2]); });
    compare(name_of("scatter_ of a value", dtype), {x, scatter_index},
            [](const auto& in) { return in[0].clone().scatter_(0, in[1], 0); });
  }
  compare_with_grad("index_copy gradients", {sample({4, 5}, tg::kDouble), copy_rows, sample({4, 5}, tg::kDouble)},
                    {0, 2}, [](const auto& in) { return tg::index_copy(in[0], 0, in[1], in[2]); },
                    Tolerance{1e-10, 1e-10});
  compare_with_grad("scatter gradients", {sample({4, 5}, tg::kDouble), scatter_index, sample({2, 4}, tg::kDouble)},
                    {0, 2}, [](const auto& in) { return tg::scatter(in[0], 1, in[1], in[2]); },
                    Tolerance{1e-10, 1e-10});
  // Out-of-range indices raise on both backends.
  const tg::Tensor x = sample({4, 5}, tg::kFloat);
  compare("index_fill out of range", {x, tg::tensor<int64_t>({-5})},
          [](const auto& in) { return tg::index_fill(in[0], 0, in[1], 1); });
  compare("index_copy out of range", {x, tg::tensor<int64_t>({4}), sample({1, 5}, tg::kFloat)},
          [](const auto& in) { return tg::index_copy(in[0], 0, in[1], in[2]); });
  compare("scatter out of range", {x, tg::tensor<int64_t>({5}).reshape({1, 1})},
          [](const auto& in) { return tg::scatter(in[0], 1, in[1], 0); });
  // Each tensor with dims left on the CPU beside CUDA ones is refused, as LibTorch does.
  const tg::Tensor gx = on_gpu(x), g_rows = on_gpu(copy_rows), source = sample({4, 5}, tg::kFloat);
  CHECK_THROWS_AS(tg::index_fill(gx, 0, copy_rows, 1), tg::Error);
  CHECK_THROWS_AS(tg::index_fill(x, 0, g_rows, 1), tg::Error);
  CHECK_THROWS_AS(gx.clone().index_fill_(0, copy_rows, 1), tg::Error);
  CHECK_THROWS_AS(tg::index_copy(gx, 0, copy_rows, on_gpu(source)), tg::Error);
  CHECK_THROWS_AS(tg::index_copy(gx, 0, g_rows, source), tg::Error);
  CHECK_THROWS_AS(tg::index_copy(x, 0, g_rows, on_gpu(source)), tg::Error);
  CHECK_THROWS_AS(gx.clone().index_copy_(0, copy_rows, on_gpu(source)), tg::Error);
  CHECK_THROWS_AS(tg::scatter(gx, 1, scatter_index, 0), tg::Error);
  CHECK_THROWS_AS(tg::scatter(x, 1, on_gpu(scatter_index), 0), tg::Error);
  CHECK_THROWS_AS(gx.clone().scatter_(1, scatter_index, 0), tg::Error);
  CHECK_THROWS_AS(tg::scatter(gx, 1, on_gpu(scatter_index), sample({2, 4}, tg::kFloat)), tg::Error);
}

TEST_CASE("cat, tril and triu agree with the CPU") {
  for (tg::ScalarType dtype : kAll) {
    const tg::Tensor a = sample({3, 4}, dtype), b = sample({3, 2}, dtype), c = sample({3, 5}, tg::kFloat);
    compare(name_of("cat dim 1 with promotion", dtype), {a, b, c},
            [](const auto& in) { return tg::cat({in[0], in[1], in[2]}, 1); });
    compare(name_of("cat dim 0 of transposes", dtype), {a, b},
            [](const auto& in) { return tg::cat({in[0].t(), in[1].t()}); });
    const tg::Tensor m = sample({2, 5, 7}, dtype);
    for (int64_t diagonal : {-2, 0, 3}) {
      compare(name_of("tril " + std::to_string(diagonal), dtype), {m},
              [diagonal](const auto& in) { return tg::tril(in[0], diagonal); });
      compare(name_of("triu of a transpose " + std::to_string(diagonal), dtype), {m},
              [diagonal](const auto& in) { return tg::triu(in[0].transpose(1, 2), diagonal); });
    }
  }
  compare("cat skips legacy empty tensors", {sample({2, 3}, tg::kFloat), tg::ones({0})},
          [](const auto& in) { return tg::cat({in[1], in[0], in[1]}, 1); });
  compare("cat of mismatched shapes raises", {sample({2, 3}, tg::kFloat), sample({3, 3}, tg::kFloat)},
          [](const auto& in) { return tg::cat({in[0], in[1]}, 1); });
  compare_with_grad("cat gradient", {sample({2, 3}, tg::kDouble), sample({2, 4}, tg::kDouble)}, {0, 1},
                    [](const auto& in) { return tg::cat({in[0], in[1]}, 1); }, Tolerance{1e-10, 1e-10});
}

TEST_CASE("nll_loss and cross_entropy agree with the CPU, with gradients") {
  const tg::Tensor target = tg::tensor<int64_t>({0, 4, -100, 2, 4, 1});
  const tg::Tensor weight = tg::tensor<double>({0.5, 1.0, 2.0, 1.5, 0.25});
  for (tg::ScalarType dtype : kFloating) {
    const tg::Tensor logits = sample({6, 5}, dtype);
    for (int64_t reduction : {tg::Reduction::None, tg::Reduction::Mean, tg::Reduction::Sum}) {
      const std::string what = name_of("reduction " + std::to_string(reduction), dtype);
      compare_with_grad("nll_loss " + what, {logits, target}, {0},
                        [reduction](const auto& in) { return tg::nll_loss(in[0], in[1], std::nullopt, reduction); },
                        loose(dtype));
      compare_with_grad(
          "cross_entropy with weights " + what, {logits, target, weight.to(dtype)}, {0},
          [reduction](const auto& in) { return tg::cross_entropy_loss(in[0], in[1], in[2], reduction); },
          loose(dtype));
    }
  }
  compare("nll_loss with a bad target", {sample({2, 3}, tg::kFloat), tg::tensor<int64_t>({0, 3})},
          [](const auto& in) { return tg::nll_loss(in[0], in[1]); });
  compare("nll_loss with every target ignored", {sample({2, 3}, tg::kFloat), tg::tensor<int64_t>({-100, -100})},
          [](const auto& in) { return tg::nll_loss(in[0], in[1]); });
}

TEST_CASE("layer_norm, embedding and their gradients agree with the CPU") {
  for (tg::ScalarType dtype : kFloating) {
    const tg::Tensor x = sample({4, 3, 300}, dtype) * 2.0 + 1.0;
    const tg::Tensor w = sample({3, 300}, dtype), b = sample({3, 300}, dtype);
    compare_with_grad(name_of("layer_norm", dtype), {x, w, b}, {0, 1, 2},
                      [](const auto& in) { return tg::layer_norm(in[0], {3, 300}, in[1], in[2]); },
                      dtype == tg::kFloat ? Tolerance{1e-3, 1e-3} : loose(dtype));
    compare_with_grad(name_of("layer_norm without parameters", dtype), {x}, {0},
                      [](const auto& in) { return tg::layer_norm(in[0], {300}); },
                      dtype == tg::kFloat ? Tolerance{1e-3, 1e-3} : loose(dtype));
    const tg::Tensor table = sample({10, 6}, dtype);
    const tg::Tensor indices = tg::tensor<int64_t>({1, 3, 3, 0, 9, 3}).reshape({2, 3});
    compare_with_grad(name_of("embedding", dtype), {table, indices}, {0},
                      [](const auto& in) { return tg::embedding(in[0], in[1]); }, loose(dtype));
    compare(name_of("embedding_dense_backward with padding_idx and frequencies", dtype),
            {sample({2, 3, 6}, dtype), indices},
            [](const auto& in) { return tg::embedding_dense_backward(in[0], in[1], 10, 3, true); }, loose(dtype));
  }
  compare("embedding_dense_backward out of range", {sample({2, 6}, tg::kFloat), tg::tensor<int64_t>({1, 10})},
          [](const auto& in) { return tg::embedding_dense_backward(in[0], in[1], 10, -1, false); });
  compare("layer_norm of a wrong shape", {sample({4, 5}, tg::kFloat)},
          [](const auto& in) { return tg::layer_norm(in[0], {4}); });
}

TEST_CASE("dropout: reproducible for a seed, the CPU's semantics otherwise") {
  const tg::Tensor x = on_gpu(sample({1000, 33}, tg::kFloat));
  tg::manual_seed(7);
  const auto [out1, mask1] = tg::native_dropout(x, 0.3, true);
  tg::manual_seed(7);
  const auto [out2, mask2] = tg::native_dropout(x, 0.3, true);
  check_same(on_cpu(out1), out2, "same seed, same output", {0, 0});
  check_same(on_cpu(mask1), mask2, "same seed, same mask", {0, 0});
  const auto [out3, mask3] = tg::native_dropout(x, 0.3, true);
  CHECK(cuda_test::values(mask3) != cuda_test::values(mask2));
  // Kept elements are scaled by 1 / (1 - p), dropped ones are 0, about p of them.
  const std::vector<double> xs = cuda_test::values(x), outs = cuda_test::values(out1), keep = cuda_test::values(mask1);
  double kept = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    kept += keep[i];
    CHECK(outs[i] == doctest::Approx(keep[i] != 0 ? xs[i] / 0.7 : 0.0).epsilon(1e-5));
  }
  CHECK(kept / static_cast<double>(xs.size()) == doctest::Approx(0.7).epsilon(0.03));
  // p = 0, p = 1, eval mode and the backward match the CPU.
  for (double p : {0.0, 1.0}) {
    compare("dropout p = " + std::to_string(p), {sample({5, 4}, tg::kHalf)},
            [p](const auto& in) { return std::get<0>(tg::native_dropout(in[0], p, true)); });
  }
  compare("dropout in eval mode", {sample({5, 4}, tg::kFloat)},
          [](const auto& in) { return std::get<0>(tg::native_dropout(in[0], 0.5, false)); });
  compare("dropout with p > 1 raises", {sample({3}, tg::kFloat)},
          [](const auto& in) { return std::get<0>(tg::native_dropout(in[0], 1.5, true)); });
  tg::Tensor leaf = on_gpu(sample({64}, tg::kDouble)).requires_grad_();
  tg::manual_seed(11);
  const tg::Tensor y = tg::dropout(leaf, 0.5, true);
  y.sum().backward();
  tg::manual_seed(11);
  const tg::Tensor mask = std::get<1>(tg::native_dropout(leaf.detach(), 0.5, true));
  check_same(on_cpu(mask.to(tg::kDouble) * 2.0), leaf.grad(), "dropout's gradient is its mask, scaled", {0, 0});
}

TEST_CASE("im2col, col2im, conv2d and pooling agree with the CPU, with gradients") {
  for (tg::ScalarType dtype : {tg::kDouble, tg::kFloat}) {
    const Tolerance tolerance = dtype == tg::kFloat ? Tolerance{1e-3, 1e-3} : Tolerance{1e-9, 1e-9};
    const tg::Tensor image = sample({2, 3, 9, 8}, dtype), kernel = sample({4, 3, 3, 2}, dtype), bias = sample({4}, dtype);
    compare(name_of("im2col", dtype), {image},
            [](const auto& in) { return tg::im2col(in[0], {3, 2}, {2, 1}, {1, 0}, {2, 1}); }, tolerance);
    compare(name_of("col2im", dtype), {sample({2, 3 * 6, 4 * 7}, dtype)},
            [](const auto& in) { return tg::col2im(in[0], {9, 8}, {3, 2}, {2, 1}, {1, 0}, {2, 1}); }, tolerance);
    compare_with_grad(name_of("conv2d", dtype), {image, kernel, bias}, {0, 1, 2},
                      [](const auto& in) { return tg::conv2d(in[0], in[1], in[2], {2, 1}, {1, 1}, {1, 2}); },
                      tolerance);
  }
  for (tg::ScalarType dtype : kFloating) {
    const tg::Tensor x = sample({2, 3, 11, 10}, dtype);
    const Tolerance tolerance = loose(dtype);
    compare_with_grad(name_of("max_pool2d", dtype), {x}, {0},
                      [](const auto& in) { return tg::max_pool2d(in[0], {3, 2}, {2, 2}, {1, 1}, {1, 2}, true); },
                      tolerance);
    compare(name_of("max_pool2d indices", dtype), {x},
            [](const auto& in) { return std::get<1>(tg::max_pool2d_with_indices(in[0], {3, 3}, {2, 1})); });
    compare_with_grad(name_of("avg_pool2d", dtype), {x}, {0},
                      [](const auto& in) { return tg::avg_pool2d(in[0], {3, 2}, {2, 2}, {1, 1}, true, false); },
                      tolerance);
    compare_with_grad(name_of("avg_pool2d with divisor_override", dtype), {x}, {0},
                      [](const auto& in) { return tg::avg_pool2d(in[0], {2, 3}, {1, 2}, {0, 1}, false, true, 5); },
                      tolerance);
  }
  const tg::Tensor nan_image = tg::tensor<float>({1, NAN, 3, 4, 5, 6, 7, 8, 9}).reshape({1, 3, 3});
  compare("max_pool2d with NaN", {nan_image}, [](const auto& in) { return tg::max_pool2d(in[0], {2, 2}, {1, 1}); });
  compare("max_pool2d with a pad too large raises", {sample({1, 4, 4}, tg::kFloat)},
          [](const auto& in) { return tg::max_pool2d(in[0], {2, 2}, {1, 1}, {2, 2}); });
}

TEST_CASE("fused optimizer steps agree with the CPU") {
  // 40 parameters (more than one launch holds) of mixed dtypes and sizes, one non-contiguous,
  // and one (index 5) split across launches (more than 320 chunks of 65536). The launcher is
  // the same for every step, so only AdamW with amsgrad takes the 21M-element tensor (under
  // the emulation it alone costs seconds); the others take its first 1000 elements.
  std::vector<tg::Tensor> params, grads, avgs, avg_sqs, max_sqs, steps, buffers;
  for (int i = 0; i < 40; ++i) {
    const tg::ScalarType dtype = i % 3 == 0 ? tg::kHalf : (i % 3 == 1 ? tg::kFloat : tg::kDouble);
    const int64_t n = i == 5 ? (int64_t{321} << 16) + 7 : 17 * i + 3;
    params.push_back(sample({n}, dtype));
    grads.push_back(sample({n}, dtype));
    avgs.push_back(sample({n}, dtype) * 0.1);
    avg_sqs.push_back(sample({n}, dtype).abs() * 0.1);
    max_sqs.push_back(sample({n}, dtype).abs() * 0.2);
    buffers.push_back(sample({n}, dtype));
    steps.push_back(tg::full({1}, 3 + i % 4, tg::TensorOptions().dtype(tg::kFloat)));
  }
  params[7] = sample({6, 12}, tg::kFloat).t();
  for (auto* list : {&grads, &avgs, &avg_sqs, &max_sqs, &buffers}) (*list)[7] = sample({12, 6}, tg::kFloat);
  bool split_launches = false;
  const auto on = [&split_launches](const std::vector<tg::Tensor>& list, bool gpu) {
    std::vector<tg::Tensor> copies;
    for (const tg::Tensor& t : list) copies.push_back(gpu ? on_gpu(t) : t.clone());
    if (!split_launches && copies[5].numel() > 1000) copies[5] = copies[5].narrow(0, 0, 1000).clone();
    return copies;
  };
  const auto check_lists = [](const std::vector<tg::Tensor>& cpu, const std::vector<tg::Tensor>& gpu,
                              const std::string& what) {
    for (size_t i = 0; i < cpu.size(); ++i) {
      const tg::ScalarType dtype = cpu[i].scalar_type();
      check_same(cpu[i], gpu[i], what + " " + std::to_string(i),
                 dtype == tg::kHalf ? Tolerance{2e-3, 2e-3} : (dtype == tg::kFloat ? Tolerance{1e-5, 1e-5}
                                                                                      : Tolerance{1e-12, 1e-12}));
    }
  };
  for (bool decoupled : {false, true}) {
    for (bool amsgrad : {false, true}) {
      split_launches = decoupled && amsgrad;
      std::vector<tg::Tensor> p[2], g[2], m[2], v[2], vm[2], s[2];
      for (int gpu = 0; gpu < 2; ++gpu) {
        p[gpu] = on(params, gpu), g[gpu] = on(grads, gpu), m[gpu] = on(avgs, gpu), v[gpu] = on(avg_sqs, gpu);
        vm[gpu] = amsgrad ? on(max_sqs, gpu) : std::vector<tg::Tensor>{};
        s[gpu] = on(steps, gpu);
        const tg::Tensor scale = tg::full({1}, 4.0, tg::TensorOptions().device(gpu ? cuda_test::kGpu : tg::Device(tg::kCPU)));
        if (decoupled) {
          tg::_fused_adamw_(p[gpu], g[gpu], m[gpu], v[gpu], vm[gpu], s[gpu], 1e-2, 0.9, 0.99, 0.1, 1e-8, amsgrad, true,
                            scale, std::nullopt);
        } else {
          tg::_fused_adam_(p[gpu], g[gpu], m[gpu], v[gpu], vm[gpu], s[gpu], 1e-2, 0.8, 0.999, 0.05, 1e-6, amsgrad,
                           false, std::nullopt, std::nullopt);
        }
      }
      const std::string what = std::string(decoupled ? "adamw" : "adam") + (amsgrad ? " amsgrad" : "");
      check_lists(p[0], p[1], what + " param");
      check_lists(g[0], g[1], what + " grad");
      check_lists(m[0], m[1], what + " exp_avg");
      check_lists(v[0], v[1], what + " exp_avg_sq");
      if (amsgrad) check_lists(vm[0], vm[1], what + " max_exp_avg_sq");
    }
  }
  split_launches = false;
  for (bool first : {false, true}) {
    std::vector<tg::Tensor> p[2], g[2], b[2];
    for (int gpu = 0; gpu < 2; ++gpu) {
      p[gpu] = on(params, gpu), g[gpu] = on(grads, gpu), b[gpu] = on(buffers, gpu);
      tg::_fused_sgd_(p[gpu], g[gpu], b[gpu], 1e-3, 0.9, 0.1, 0.0, true, false, first);
    }
    check_lists(p[0], p[1], "sgd param");
    check_lists(b[0], b[1], "sgd momentum buffer");
  }
  // found_inf skips the step; errors are the CPU's.
  std::vector<tg::Tensor> p = on(params, true), g = on(grads, true);
  tg::_fused_sgd_(p, g, {}, 0.0, 0.0, 0.1, 0.0, false, false, false, std::nullopt,
                  on_gpu(tg::ones({1}, tg::TensorOptions().dtype(tg::kFloat))));
  check_lists(on(params, false), p, "sgd skipped by found_inf");
  CHECK_THROWS_AS(tg::_fused_sgd_(p, {}, {}, 0.0, 0.0, 0.1, 0.0, false, false, false), tg::ValueError);
}

TEST_CASE("a training step of the MLP example on CUDA equals the CPU's") {
  const tg::Tensor points = sample({64, 2}, tg::kFloat);
  const tg::Tensor labels = cycling_indices({64}, 3);
  std::vector<tg::Tensor> weights = {sample({16, 2}, tg::kFloat), sample({16}, tg::kFloat), sample({3, 16}, tg::kFloat),
                                     sample({3}, tg::kFloat)};
  const auto step = [&](bool gpu) {
    std::vector<tg::Tensor> params, buffers;
    for (const tg::Tensor& w : weights) {
      params.push_back((gpu ? on_gpu(w) : w.clone()).requires_grad_());
      buffers.push_back(tg::zeros_like(params.back()));
    }
    const tg::Tensor x = gpu ? on_gpu(points) : points, y = gpu ? on_gpu(labels) : labels;
    const tg::Tensor hidden = tg::relu(tg::linear(x, params[0], params[1]));
    const tg::Tensor loss = tg::cross_entropy_loss(tg::linear(hidden, params[2], params[3]), y);
    loss.backward();
    std::vector<tg::Tensor> grads;
    for (const tg::Tensor& p : params) grads.push_back(p.grad());
    {
      tg::NoGradGuard no_grad;
      std::vector<tg::Tensor> data;
      for (const tg::Tensor& p : params) data.push_back(p.detach());
      tg::_fused_sgd_(data, grads, buffers, 0.0, 0.9, 0.1, 0.0, false, false, true);
    }
    std::vector<tg::Tensor> results{loss.detach()};
    for (const tg::Tensor& p : params) results.push_back(p.detach());
    return results;
  };
  const std::vector<tg::Tensor> cpu = step(false), gpu = step(true);
  for (size_t i = 0; i < cpu.size(); ++i) check_same(cpu[i], gpu[i], "MLP step, result " + std::to_string(i), {1e-4, 1e-4});
}
