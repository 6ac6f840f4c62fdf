// What makes the static runtime fast at small batches, each checked so that a wrong
// optimisation fails: the one-row (GEMV) matrix product the CPU mm/addmm/bmm kernels take at
// m = 1 (kernels/cpu/gemv.h), and frozen inputs (passes/freeze.h, StaticModuleOptions).
#include <doctest/doctest.h>

#include <cmath>

#include "graph_test_models.h"
#include "jit/jit.h"

using namespace tg;
using namespace tg::graph_test;
using tg::jit::Graph;
using tg::jit::StaticModule;

namespace {

// x[1, k] @ b[k, n] in double, from the float operands.
std::vector<double> reference_product(const Tensor& x, const Tensor& b) {
  const Tensor xd = x.to(TensorOptions().dtype(kDouble)).contiguous();
  const Tensor bd = b.to(TensorOptions().dtype(kDouble)).contiguous();
  const int64_t k = b.size(0), n = b.size(1);
  std::vector<double> result(static_cast<size_t>(n), 0.0);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t p = 0; p < k; ++p) {
      result[static_cast<size_t>(j)] += xd.data_ptr<double>()[p] * bd.data_ptr<double>()[p * n + j];
    }
  }
  return result;
}

// Each element within float rounding of a k-term sum: |error| <= k * eps * sum |x_p b_pj|.
void check_close_to_reference(const Tensor& got, const Tensor& x, const Tensor& b, double alpha = 1.0,
                              const std::vector<double>& plus = {}) {
  const std::vector<double> ref = reference_product(x, b);
  const std::vector<double> bound = reference_product(x.abs(), b.abs());
  const Tensor g = got.reshape({-1}).contiguous();
  REQUIRE(g.numel() == static_cast<int64_t>(ref.size()));
  const double k = static_cast<double>(b.size(0));
  for (size_t j = 0; j < ref.size(); ++j) {
    CAPTURE(j);
    const double expected = alpha * ref[j] + (plus.empty() ? 0.0 : plus[j]);
    const double magnitude = std::abs(alpha) * bound[j] + (plus.empty() ? 0.0 : std::abs(plus[j]));
    const double tolerance = 2 * (k + 2) * 6e-8 * magnitude;
    CHECK(std::abs(g.data_ptr<float>()[j] - expected) <= tolerance + 1e-30);
  }
}

std::vector<Tensor> mlp_inputs(const MlpShape& s, int64_t batch) {
  std::vector<Tensor> in = mlp_params(s, false);
  manual_seed(static_cast<uint64_t>(100 + batch));
  in.push_back(randn({batch, s.in}));
  return in;
}

std::map<std::string, Tensor> first_as_frozen(const std::vector<Tensor>& in, const std::vector<std::string>& names) {
  std::map<std::string, Tensor> frozen;
  for (size_t i = 0; i < names.size(); ++i) frozen[names[i]] = in[i];
  return frozen;
}

std::vector<std::string> mlp_input_names() {
  std::vector<std::string> names = kMlpParamNames;
  names.push_back("x");
  return names;
}

}  // namespace

TEST_CASE("gemv: one-row products match a double reference for both weight layouts and odd sizes") {
  manual_seed(3);
  for (int64_t k : {1, 7, 8, 33, 300}) {
    for (int64_t n : {1, 3, 4, 5, 31, 32, 33, 70}) {
      CAPTURE(k);
      CAPTURE(n);
      const Tensor x = randn({1, k});
      const Tensor w = randn({n, k});  // linear's weight: used as w.t(), unit row stride
      const Tensor b_row_major = randn({k, n});
      check_close_to_reference(mm(x, w.t()), x, w.t());
      check_close_to_reference(mm(x, b_row_major), x, b_row_major);
      // x strided (a column of a wider matrix, seen as a row)
      const Tensor wide = randn({k, 3});
      const Tensor x_strided = wide.select(1, 1).unsqueeze(0);
      check_close_to_reference(mm(x_strided, w.t()), x_strided, w.t());
      check_close_to_reference(mm(x_strided, b_row_major), x_strided, b_row_major);
      // addmm: beta * bias + alpha * product, the bias broadcast over the row
      const Tensor bias = randn({n});
      const Tensor y = addmm(bias, x, w.t(), 0.5, 2.0);
      std::vector<double> half_bias;
      for (int64_t j = 0; j < n; ++j) half_bias.push_back(0.5 * bias.data_ptr<float>()[j]);
      check_close_to_reference(y, x, w.t(), 2.0, half_bias);
    }
  }
}

TEST_CASE("gemv: an output's value does not depend on how many outputs are computed with it") {
  // Each output has one summation order (Note [GEMV order]): the first 5 outputs of a
  // 70-output product equal the 5-output product's, and a batch of one bmm equals mm.
  manual_seed(5);
  for (int64_t k : {9, 64, 257}) {
    CAPTURE(k);
    const Tensor x = randn({1, k});
    const Tensor w = randn({70, k});
    const Tensor b = randn({k, 70});
    CHECK(bitwise_equal(mm(x, w.t()).narrow(1, 0, 5), mm(x, w.narrow(0, 0, 5).t())));
    CHECK(bitwise_equal(mm(x, b).narrow(1, 0, 5), mm(x, b.narrow(1, 0, 5).contiguous())));
    CHECK(bitwise_equal(mm(x, b).narrow(1, 40, 30), mm(x, b.narrow(1, 40, 30).contiguous())));
    CHECK(bitwise_equal(bmm(x.unsqueeze(0), w.t().unsqueeze(0)).squeeze(0), mm(x, w.t())));
  }
}

TEST_CASE("gemv: a product large enough to split over threads gives the one-thread bits") {
  manual_seed(6);
  const Tensor x = randn({1, 1024});
  const Tensor w = randn({2304, 1024});  // 2.4M multiply-adds: above the parallel threshold
  const Tensor b = randn({1024, 2304});
  const int threads = get_num_threads();
  set_num_threads(1);
  const Tensor one_dot = mm(x, w.t()), one_axpy = mm(x, b);
  set_num_threads(std::max(2, threads));
  const Tensor many_dot = mm(x, w.t()), many_axpy = mm(x, b);
  set_num_threads(threads);
  CHECK(bitwise_equal(one_dot, many_dot));
  CHECK(bitwise_equal(one_axpy, many_axpy));
  check_close_to_reference(many_dot, x, w.t());
  check_close_to_reference(many_axpy, x, b);
}

TEST_CASE("gemv: beta = 0 does not read the bias (a NaN there does not propagate)") {
  const Tensor x = ones({1, 4});
  const Tensor w = ones({3, 4});
  const Tensor nan_bias = full({3}, std::nan(""));
  const Tensor y = addmm(nan_bias, x, w.t(), 0.0, 1.0);
  for (int64_t j = 0; j < 3; ++j) CHECK(y.data_ptr<float>()[j] == 4.0f);
  const Tensor z = addmm(nan_bias, x, w.t());
  for (int64_t j = 0; j < 3; ++j) CHECK(std::isnan(z.data_ptr<float>()[j]));
}

TEST_CASE("freeze: frozen parameters become constants, views of them are folded, results stay eager's bits") {
  const MlpShape s;
  const std::vector<Tensor> example = mlp_inputs(s, 1);
  const Graph g = jit::trace(mlp_forward, example, mlp_input_names());
  StaticModule m(g, {first_as_frozen(example, kMlpParamNames)});
  // The two weight.t() views were evaluated once: the frozen graph runs addmm, relu, addmm.
  CHECK(m.graph().inputs().size() == 1);
  CHECK(m.graph().name(m.graph().inputs()[0]) == "x");
  CHECK(m.graph().nodes().size() == g.nodes().size() - 2);
  for (const auto& node : m.graph().nodes()) CHECK(node.op.rfind("tg::t", 0) != 0);
  // The folded transpose keeps its strides (so addmm takes eager's path) and shares the
  // weight's memory rather than copying it.
  bool found_transposed = false;
  for (int v = 0; v < m.graph().num_values(); ++v) {
    if (!m.graph().is_constant(v) || m.graph().constant(v).dim() != 2) continue;
    const Tensor& c = m.graph().constant(v);
    if (c.sizes() == IntArrayRef{s.in, s.hidden}) {
      found_transposed = true;
      CHECK_FALSE(c.is_contiguous());
      CHECK(c.data_ptr() == example[0].data_ptr());
    }
  }
  CHECK(found_transposed);
  for (int64_t batch : {1, 3, 1, 64}) {  // a new shape plans again; each run equals eager
    CAPTURE(batch);
    std::vector<Tensor> in = mlp_inputs(s, batch);
    const Tensor expected = mlp_forward(in)[0];
    for (int run = 0; run < 2; ++run) CHECK(bitwise_equal(m.run({in[4]})[0], expected));
  }
  CHECK(m.num_plans() == 3);
}

TEST_CASE("freeze: a frozen weight written in place afterwards is refused, never silently stale") {
  const MlpShape s;
  std::vector<Tensor> in = mlp_inputs(s, 1);
  StaticModule m(jit::trace(mlp_forward, in, mlp_input_names()), {first_as_frozen(in, kMlpParamNames)});
  CHECK(bitwise_equal(m.run({in[4]})[0], mlp_forward(in)[0]));
  {
    NoGradGuard no_grad;
    in[0].add_(1.0);  // what an optimizer step does to a parameter
  }
  CHECK_THROWS_WITH_AS(m.run({in[4]}), doctest::Contains("frozen input 'fc1.weight' was written in place"), Error);
  // A module built again takes the new values.
  StaticModule again(jit::trace(mlp_forward, in, mlp_input_names()), {first_as_frozen(in, kMlpParamNames)});
  CHECK(bitwise_equal(again.run({in[4]})[0], mlp_forward(in)[0]));
  in[3].copy_(zeros({s.out}));  // copy_ into the bias is a write too
  CHECK_THROWS_WITH_AS(again.run({in[4]}), doctest::Contains("frozen input 'fc2.bias'"), Error);
}

TEST_CASE("static runtime: products cut over two threads equal eager bit for bit") {
  // At the benchmark's size each of the block's products ([256, 256] @ [256, 256] and up, 2^24
  // multiply-adds) is cut into one block per thread (Note [One thread pool] in
  // kernels/cpu/blas_gemm.cpp); eager and the static module cut it alike.
  const int threads = get_num_threads();
  set_num_threads(std::max(2, threads));
  std::vector<Tensor> in = transformer_params(256, 1024);
  manual_seed(12);
  in.push_back(randn({4, 64, 256}));
  const Graph g = jit::trace(transformer_block, in);
  StaticModule plain(g);
  for (int trial = 0; trial < 2; ++trial) {
    CAPTURE(trial);
    in.back() = randn({4, 64, 256});
    const Tensor expected = transformer_block(in)[0];
    CHECK(bitwise_equal(plain.run(in)[0], expected));
  }
  set_num_threads(threads);
}

TEST_CASE("freeze: a transformer block with frozen parameters equals eager bit for bit") {
  std::vector<Tensor> in = transformer_params(32, 64);
  manual_seed(11);
  in.push_back(randn({2, 5, 32}));
  std::map<std::string, Tensor> frozen;
  for (size_t i = 0; i + 1 < in.size(); ++i) frozen["input" + std::to_string(i)] = in[i];
  const Graph g = jit::trace(transformer_block, in);
  StaticModule m(g, {frozen});
  CHECK(m.graph().inputs().size() == 1);
  // The trace records reshape sizes as constants, so the shape stays; new values each time.
  for (int trial = 0; trial < 3; ++trial) {
    CAPTURE(trial);
    in.back() = randn({2, 5, 32});
    const Tensor expected = transformer_block(in)[0];
    for (int run = 0; run < 2; ++run) CHECK(bitwise_equal(m.run({in.back()})[0], expected));
  }
}

TEST_CASE("freeze: bad frozen inputs are clear errors") {
  const MlpShape s;
  const std::vector<Tensor> in = mlp_inputs(s, 2);
  const Graph g = jit::trace(mlp_forward, in, mlp_input_names());
  auto build = [&](const std::string& name, const Tensor& value) { StaticModule m(g, {{{name, value}}}); };
  CHECK_THROWS_WITH_AS(build("fc3.weight", in[0]),
                       doctest::Contains("no input named 'fc3.weight'; its inputs are 'fc1.weight'"), Error);
  CHECK_THROWS_WITH_AS(build("fc1.weight", randn({3, 3})), doctest::Contains("input 'fc1.weight' is float32[64, 32]"),
                       Error);
  CHECK_THROWS_WITH_AS(build("fc1.bias", Tensor()), doctest::Contains("'fc1.bias' gets an undefined tensor"), Error);
  StaticModule m(g, {first_as_frozen(in, kMlpParamNames)});
  CHECK_THROWS_WITH_AS(m.run(in), doctest::Contains("frozen inputs are not passed"), Error);
}
