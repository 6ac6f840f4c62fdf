// Every operator with a CUDA kernel, on CUDA against the CPU: each dtype the CPU kernel
// supports, broadcasting, non-contiguous inputs, CPU scalars, in-place and out= variants,
// sizes that take the vectorized and the multi-block paths; errors for mixed devices.
#include <doctest/doctest.h>

#include <string>
#include <tuple>
#include <vector>

#include "cuda_test_helpers.h"

using cuda_test::check_same;
using cuda_test::compare;
using cuda_test::on_gpu;
using cuda_test::sample;

namespace {

constexpr tg::ScalarType kAll[] = {tg::kDouble, tg::kFloat, tg::kHalf, tg::kBFloat16, tg::kLong,
                                   tg::kInt,    tg::kShort, tg::kChar, tg::kByte,     tg::kBool};

std::string name_of(const std::string& op, tg::ScalarType dtype) { return op + " on " + std::string(tg::to_string(dtype)); }

using Binary = std::function<tg::Tensor(const tg::Tensor&, const tg::Tensor&)>;

const std::vector<std::pair<std::string, Binary>>& binary_ops() {
  static const std::vector<std::pair<std::string, Binary>> ops = {
      {"add", [](const tg::Tensor& a, const tg::Tensor& b) { return tg::add(a, b); }},
      {"add alpha", [](const tg::Tensor& a, const tg::Tensor& b) { return tg::add(a, b, 2); }},
      {"sub", [](const tg::Tensor& a, const tg::Tensor& b) { return tg::sub(a, b, 3); }},
      {"mul", [](const tg::Tensor& a, const tg::Tensor& b) { return tg::mul(a, b); }},
      {"div", [](const tg::Tensor& a, const tg::Tensor& b) { return tg::div(a, b); }},
      {"pow", [](const tg::Tensor& a, const tg::Tensor& b) { return tg::pow(tg::abs(a), b); }},
      {"eq", [](const tg::Tensor& a, const tg::Tensor& b) { return tg::eq(a, b); }},
      {"ne", [](const tg::Tensor& a, const tg::Tensor& b) { return tg::ne(a, b); }},
      {"lt", [](const tg::Tensor& a, const tg::Tensor& b) { return tg::lt(a, b); }},
      {"le", [](const tg::Tensor& a, const tg::Tensor& b) { return tg::le(a, b); }},
      {"gt", [](const tg::Tensor& a, const tg::Tensor& b) { return tg::gt(a, b); }},
      {"ge", [](const tg::Tensor& a, const tg::Tensor& b) { return tg::ge(a, b); }},
  };
  return ops;
}

using Unary = std::function<tg::Tensor(const tg::Tensor&)>;

const std::vector<std::pair<std::string, Unary>>& unary_ops() {
  static const std::vector<std::pair<std::string, Unary>> ops = {
      {"neg", [](const tg::Tensor& a) { return tg::neg(a); }},
      {"abs", [](const tg::Tensor& a) { return tg::abs(a); }},
      {"exp", [](const tg::Tensor& a) { return tg::exp(a); }},
      {"log", [](const tg::Tensor& a) { return tg::log(tg::abs(a)); }},
      {"sqrt", [](const tg::Tensor& a) { return tg::sqrt(tg::abs(a)); }},
      {"relu", [](const tg::Tensor& a) { return tg::relu(a); }},
      {"sigmoid", [](const tg::Tensor& a) { return tg::sigmoid(a); }},
      {"tanh", [](const tg::Tensor& a) { return tg::tanh(a); }},
      {"clamp", [](const tg::Tensor& a) { return tg::clamp(a, -1, 2); }},
      {"clamp min", [](const tg::Tensor& a) { return tg::clamp(a, 0.5); }},
  };
  return ops;
}

}  // namespace

TEST_CASE("binary operators and comparisons agree with the CPU on every dtype") {
  for (tg::ScalarType dtype : kAll) {
    for (const auto& [op, f] : binary_ops()) {
      const tg::Tensor a = sample({7, 33}, dtype), b = sample({7, 33}, dtype);
      compare(name_of(op, dtype), {a, b}, [&f = f](const auto& in) { return f(in[0], in[1]); });
      // Broadcast and non-contiguous.
      const tg::Tensor row = sample({33}, dtype), wide = sample({33, 7}, dtype);
      compare(name_of(op, dtype) + " broadcast, transposed", {wide, row},
              [&f = f](const auto& in) { return f(in[0].transpose(0, 1), in[1].narrow(0, 0, 7).expand({33, 7}).transpose(0, 1)); });
    }
  }
}

TEST_CASE("binary operators: mixed dtypes, CPU scalars, in-place and out=") {
  const tg::Tensor f16 = sample({5, 6}, tg::kHalf), i64 = sample({5, 6}, tg::kLong);
  const tg::Tensor f32 = sample({6}, tg::kFloat), u8 = sample({5, 1}, tg::kByte);
  for (const auto& [op, f] : binary_ops()) {
    compare(op + " half with int64", {f16, i64}, [&f = f](const auto& in) { return f(in[0], in[1]); });
    compare(op + " float with uint8", {f32, u8}, [&f = f](const auto& in) { return f(in[0], in[1]); });
    compare(op + " with a CPU scalar", {f32, tg::scalar_tensor(2.5, tg::kDouble)},
            [&f = f](const auto& in) { return f(in[0], in[1]); });
  }
  compare("mul by a Scalar", {f16}, [](const auto& in) { return in[0] * 3; });
  compare("add_ in place", {f32.clone(), f32}, [](const auto& in) {
    tg::Tensor self = in[0].clone();
    self.add_(in[1], 0.5);
    return self;
  });
  compare("sub_ on a non-contiguous self", {sample({6, 6}, tg::kDouble)}, [](const auto& in) {
    tg::Tensor self = in[0].clone();
    self.transpose(0, 1).sub_(in[0]);
    return self;
  });
  compare("div out= of another dtype", {f32, f32}, [](const auto& in) {
    tg::Tensor out = tg::empty({0}, in[0].options().dtype(tg::kDouble));
    tg::div_out(out, in[0], in[1]);
    return out;
  });
  // Large enough for the vectorized path with a tail, and misaligned by a view offset.
  const tg::Tensor big = sample({1 << 20 | 3}, tg::kHalf);
  compare("add on 2^20 + 3 halves", {big, big}, [](const auto& in) { return in[0] + in[1]; });
  compare("add on a misaligned view", {big}, [](const auto& in) { return in[0].narrow(0, 1, 1000) * in[0].narrow(0, 2, 1000); });
}

TEST_CASE("unary operators agree with the CPU on every dtype") {
  for (tg::ScalarType dtype : kAll) {
    for (const auto& [op, f] : unary_ops()) {
      const tg::Tensor a = sample({9, 17}, dtype);
      compare(name_of(op, dtype), {a}, [&f = f](const auto& in) { return f(in[0]); });
      compare(name_of(op, dtype) + " transposed", {a}, [&f = f](const auto& in) { return f(in[0].transpose(0, 1)); });
    }
  }
  const tg::Tensor nan = tg::full({3}, std::nan(""), tg::TensorOptions().dtype(tg::kFloat));
  compare("relu and clamp keep NaN", {nan}, [](const auto& in) { return tg::relu(in[0]) + tg::clamp(in[0], 0, 1); });
}

TEST_CASE("where agrees with the CPU") {
  for (tg::ScalarType dtype : kAll) {
    const tg::Tensor condition = sample({4, 5}, tg::kBool), a = sample({4, 5}, dtype), b = sample({5}, dtype);
    compare(name_of("where", dtype), {condition, a, b}, [](const auto& in) { return tg::where(in[0], in[1], in[2]); });
  }
}

TEST_CASE("reductions agree with the CPU, small and multi-block") {
  // The last three just past the sizes where the kernel changes strategy (reduce.cuh): rows of
  // at least 1024 take a block each, and rows of at least 2 x 4096 (columns: 2 x 256) are split
  // across blocks when the outputs alone leave the device short of blocks. Larger sizes run the
  // same code and cost minutes under the emulation.
  const std::vector<std::vector<int64_t>> shapes = {{}, {7}, {5, 300}, {300, 5}, {3, 4, 5}, {1 << 14}, {4, 1 << 14}, {1 << 12, 3}};
  for (tg::ScalarType dtype : kAll) {
    for (const auto& shape : shapes) {
      const tg::Tensor a = sample(shape, dtype);
      const std::string where = name_of("", dtype) + " shape " + std::to_string(shape.size()) + "-d";
      // Integer sums are exact; float sums of up to 2^14 elements differ by rounding order.
      const cuda_test::Tolerance sum_tolerance =
          tg::is_floating_type(dtype) ? cuda_test::Tolerance{1e-2, 1e-3} : cuda_test::Tolerance{0, 0};
      const auto sum_all = [](const auto& in) { return tg::sum(in[0]); };
      std::vector<tg::Tensor> gpu_in{on_gpu(a)};
      tg::Tensor expected;
      bool cpu_ok = true;
      try {
        expected = sum_all(std::vector<tg::Tensor>{a});
      } catch (const tg::Error&) {
        cpu_ok = false;
      }
      if (cpu_ok) check_same(expected, sum_all(gpu_in), "sum" + where, sum_tolerance);
      compare("amax" + where, {a}, [](const auto& in) { return tg::amax(in[0]); });
      compare("amin" + where, {a}, [](const auto& in) { return tg::amin(in[0]); });
      compare("argmax" + where, {a}, [](const auto& in) { return tg::argmax(in[0]); });
      if (!shape.empty()) {
        compare("max.dim values" + where, {a}, [](const auto& in) { return std::get<0>(tg::max(in[0], -1, true)); });
        compare("max.dim indices" + where, {a}, [](const auto& in) { return std::get<1>(tg::max(in[0], 0)); });
        compare("argmax dim 0" + where, {a}, [](const auto& in) { return tg::argmax(in[0], 0); });
        compare("amax dim 0" + where, {a}, [](const auto& in) { return tg::amax(in[0], {0}, true); });
      }
      if (tg::is_floating_type(dtype)) {
        compare("mean" + where, {a}, [](const auto& in) { return tg::mean(in[0]); });
        if (shape.size() >= 2) {
          compare("mean dims" + where, {a}, [](const auto& in) { return tg::mean(in[0], {{0, -1}}, true); });
          compare("sum dim 1 of the transpose" + where, {a},
                  [](const auto& in) { return tg::sum(in[0].transpose(0, 1), {{1}}); });
        }
      }
    }
  }
  // Ties and NaN: the first maximum wins, and NaN counts as the largest value.
  const tg::Tensor ties = tg::tensor<float>({1, 3, 3, 2, 3});
  compare("argmax ties", {ties}, [](const auto& in) { return tg::argmax(in[0]); });
  const tg::Tensor with_nan = tg::tensor<float>({1, std::nanf(""), 3, std::nanf("")});
  compare("argmax NaN", {with_nan}, [](const auto& in) { return tg::argmax(in[0]); });
  compare("amax NaN", {with_nan}, [](const auto& in) { return tg::amax(in[0]); });
  compare("sum of an empty dim", {tg::ones({3, 0})}, [](const auto& in) { return tg::sum(in[0], {{1}}); });
  compare("sum with dtype", {sample({10, 10}, tg::kInt)}, [](const auto& in) { return tg::sum(in[0], tg::kDouble); });
}

TEST_CASE("matrix products agree with the CPU") {
  for (tg::ScalarType dtype : {tg::kDouble, tg::kFloat, tg::kHalf, tg::kBFloat16, tg::kLong, tg::kInt, tg::kShort,
                               tg::kChar, tg::kByte}) {
    const cuda_test::Tolerance tolerance = dtype == tg::kFloat      ? cuda_test::Tolerance{1e-3, 1e-3}
                                           : tg::is_floating_type(dtype) ? cuda_test::tolerance_for(dtype)
                                                                         : cuda_test::Tolerance{0, 0};
    const tg::Tensor a = sample({37, 19}, dtype), b = sample({19, 23}, dtype), c = sample({23}, dtype);
    const auto check = [&](const std::string& op, const std::vector<tg::Tensor>& in,
                           const std::function<tg::Tensor(const std::vector<tg::Tensor>&)>& f) {
      std::vector<tg::Tensor> gpu_in;
      for (const auto& t : in) gpu_in.push_back(on_gpu(t));
      check_same(f(in), f(gpu_in), name_of(op, dtype), tolerance);
    };
    check("mm", {a, b}, [](const auto& in) { return tg::mm(in[0], in[1]); });
    check("mm transposed", {a, b}, [](const auto& in) { return tg::mm(in[1].t(), in[0].t()); });
    check("mm of a non-contiguous slice", {a, b},
          [](const auto& in) { return tg::mm(in[0].narrow(1, 0, 10), in[1].narrow(0, 0, 10).narrow(1, 3, 7)); });
    check("addmm", {c, a, b}, [](const auto& in) { return tg::addmm(in[0], in[1], in[2], 1, 1); });
    check("addmm beta alpha", {c, a, b}, [](const auto& in) { return tg::addmm(in[0], in[1], in[2], 2, 3); });
    check("bmm", {a, b}, [](const auto& in) {
      return tg::bmm(in[0].narrow(0, 0, 36).reshape({4, 9, 19}), in[1].expand({4, 19, 23}));
    });
    check("mm with k = 0", {a, b}, [](const auto& in) { return tg::mm(in[0].narrow(1, 0, 0), in[1].narrow(0, 0, 0)); });
    check("addmm with k = 0 scales self by beta", {c, a, b},
          [](const auto& in) { return tg::addmm(in[0], in[1].narrow(1, 0, 0), in[2].narrow(0, 0, 0), 3, 2); });
    // Strided in both dims: no leading dimension lets cuBLAS read it, so it is copied first.
    check("mm of an operand strided in both dims", {a, b},
          [](const auto& in) { return tg::mm(in[0].slice(1, 0, 19, 2), in[1].slice(0, 0, 19, 2)); });
    // out= aliasing an operand: the product goes to a temporary first.
    check("mm into its own operand", {a.narrow(0, 0, 19), b.narrow(1, 0, 19)}, [](const auto& in) {
      tg::Tensor left = in[0].clone();
      return tg::mm_out(left, left, in[1]);
    });
  }
}

TEST_CASE("factories: fill_, arange, empty, and their errors") {
  const tg::TensorOptions gpu = tg::TensorOptions().device(cuda_test::kGpu);
  for (tg::ScalarType dtype : kAll) {
    compare(name_of("fill_", dtype), {tg::empty({3, 4}, tg::TensorOptions().dtype(dtype))}, [](const auto& in) {
      tg::Tensor t = in[0].clone();
      t.transpose(0, 1).fill_(1);
      return t;
    });
    if (dtype != tg::kBool) {
      check_same(tg::arange(0, 50, 3, tg::TensorOptions().dtype(dtype)), tg::arange(0, 50, 3, gpu.dtype(dtype)),
                 name_of("arange", dtype));
    }
  }
  check_same(tg::arange(-1.5, 2.75, 0.25), tg::arange(-1.5, 2.75, 0.25, gpu), "floating arange");
  CHECK_THROWS_AS(tg::arange(0, 10, 0, gpu), tg::ValueError);
  CHECK_THROWS_AS(tg::empty({2}, gpu.dtype(tg::kByte)).fill_(300), tg::ValueError);
  CHECK_THROWS_AS(tg::empty({-1}, gpu), tg::ValueError);
  CHECK_THROWS_AS(tg::empty({2}, tg::TensorOptions().device(tg::Device(tg::kCUDA, 100))), tg::Error);
  const tg::Tensor e = tg::empty({2, 3}, gpu);
  CHECK(e.device() == cuda_test::kGpu);
  CHECK(e.sizes() == tg::IntArrayRef({2, 3}));
}

TEST_CASE("random: the same seed gives the same tensor, and the distributions are right") {
  const tg::TensorOptions gpu = tg::TensorOptions().device(cuda_test::kGpu);
  tg::manual_seed(123);
  const tg::Tensor u1 = tg::rand({1 << 16}, gpu);
  const tg::Tensor n1 = tg::randn({1 << 16}, gpu.dtype(tg::kDouble));
  tg::manual_seed(123);
  const tg::Tensor u2 = tg::rand({1 << 16}, gpu);
  const tg::Tensor n2 = tg::randn({1 << 16}, gpu.dtype(tg::kDouble));
  check_same(on_gpu(cuda_test::on_cpu(u1)), u2, "same seed, uniform", {0, 0});
  check_same(on_gpu(cuda_test::on_cpu(n1)), n2, "same seed, normal", {0, 0});
  const std::vector<double> u = cuda_test::values(u1), n = cuda_test::values(n1);
  double u_mean = 0, n_mean = 0, n_var = 0;
  for (size_t i = 0; i < u.size(); ++i) {
    CHECK(u[i] >= 0.0);
    CHECK(u[i] < 1.0);
    u_mean += u[i] / static_cast<double>(u.size());
    n_mean += n[i] / static_cast<double>(n.size());
  }
  for (double x : n) n_var += (x - n_mean) * (x - n_mean) / static_cast<double>(n.size());
  CHECK(u_mean == doctest::Approx(0.5).epsilon(0.02));
  CHECK(n_mean == doctest::Approx(0.0).epsilon(0.02));
  CHECK(n_var == doctest::Approx(1.0).epsilon(0.03));
  // The next draw continues the sequence instead of repeating it.
  CHECK(cuda_test::values(tg::rand({4}, gpu)) != cuda_test::values(u1.narrow(0, 0, 4)));
  tg::Tensor t = tg::empty({100}, gpu.dtype(tg::kHalf));
  t.uniform_(2, 3);
  for (double x : cuda_test::values(t)) CHECK((x >= 2.0 && x <= 3.0));
  CHECK_THROWS_AS(tg::empty({3}, gpu.dtype(tg::kLong)).uniform_(), tg::NotImplementedError);
}

TEST_CASE("mixing devices is an error, a CPU scalar is not") {
  const tg::Tensor gpu = tg::ones({3}, tg::TensorOptions().device(cuda_test::kGpu));
  const tg::Tensor cpu = tg::ones({3});
  const std::string message = [&] {
    try {
      (void)tg::add(gpu, cpu);
    } catch (const tg::Error& e) {
      return e.message();
    }
    return std::string();
  }();
  CHECK(message.find("expected all tensors to be on the same device") != std::string::npos);
  CHECK_THROWS_AS(tg::mm(gpu.reshape({1, 3}), cpu.reshape({3, 1})), tg::Error);
  CHECK(cuda_test::values(tg::add(gpu, tg::scalar_tensor(2, tg::kLong)))[0] == 3.0);
  tg::Tensor out = tg::empty({3});
  CHECK_THROWS_AS(tg::add_out(out, gpu, gpu), tg::Error);
}
