// Helpers of the GPU tests: moving tensors between devices, reading values back, and
// comparing a CUDA result with the CPU's.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <tensorgen/tensorgen.h>

namespace cuda_test {

inline const tg::Device kGpu(tg::kCUDA, 0);

inline tg::Tensor on_gpu(const tg::Tensor& t) { return t.to(kGpu); }
inline tg::Tensor on_cpu(const tg::Tensor& t) { return t.to(tg::Device(tg::kCPU)); }

// Every element as a double, in row-major order (the tensor may be on any device).
inline std::vector<double> values(const tg::Tensor& t) {
  const tg::Tensor cpu = on_cpu(t).to(tg::kDouble).contiguous();
  const double* data = cpu.data_ptr<double>();
  return std::vector<double>(data, data + cpu.numel());
}

struct Tolerance {
  double atol = 1e-5;
  double rtol = 1e-5;
};

inline Tolerance tolerance_for(tg::ScalarType dtype) {
  switch (dtype) {
    case tg::kHalf: return {1e-2, 1e-2};
    case tg::kBFloat16: return {5e-2, 5e-2};
    case tg::kFloat: return {1e-4, 1e-4};
    case tg::kDouble: return {1e-10, 1e-10};
    default: return {0, 0};
  }
}

// Checks shape, dtype and values (NaN equal to NaN) of a CUDA result against the CPU's.
inline void check_same(const tg::Tensor& cpu, const tg::Tensor& gpu, const std::string& what,
                       Tolerance tolerance) {
  INFO(what);
  REQUIRE(gpu.is_cuda());
  REQUIRE(cpu.sizes() == gpu.sizes());
  REQUIRE(cpu.scalar_type() == gpu.scalar_type());
  const std::vector<double> expected = values(cpu), actual = values(gpu);
  for (size_t i = 0; i < expected.size(); ++i) {
    const double e = expected[i], a = actual[i];
    if (std::isnan(e) || std::isnan(a)) {
      CHECK_MESSAGE(std::isnan(e) == std::isnan(a), "element ", i, ": CPU ", e, ", CUDA ", a);
      continue;
    }
    if (e == a) continue;  // equal infinities too
    CHECK_MESSAGE(std::fabs(e - a) <= tolerance.atol + tolerance.rtol * std::fabs(e), "element ", i, ": CPU ", e,
                  ", CUDA ", a);
  }
}

inline void check_same(const tg::Tensor& cpu, const tg::Tensor& gpu, const std::string& what) {
  check_same(cpu, gpu, what, tolerance_for(cpu.scalar_type()));
}

// A CPU tensor of `dtype` with values that suit every operator: normal floats, small
// integers (-5..5, or 0..9 for uint8), random bools.
inline tg::Tensor sample(tg::IntArrayRef sizes, tg::ScalarType dtype) {
  const tg::Tensor x = tg::randn(sizes, tg::TensorOptions().dtype(tg::kDouble));
  if (tg::is_floating_type(dtype)) return x.to(dtype);
  if (dtype == tg::kBool) return tg::gt(x, 0.0);
  if (dtype == tg::kByte) return tg::clamp(x * 3.0 + 5.0, 0.0, 9.0).to(dtype);
  return tg::clamp(x * 3.0, -5.0, 5.0).to(dtype);
}

// Runs f on the CPU inputs and on their CUDA copies and compares, with the dtype's tolerance
// unless one is given; when the CPU throws, CUDA must throw the same kind of error. 0-dim CPU
// inputs stay on the CPU beside CUDA tensors with dims (they are scalars there, as in
// LibTorch); when every input is 0-dim they all go to the GPU, so that the operator runs there.
inline void compare(const std::string& what, const std::vector<tg::Tensor>& inputs,
                    const std::function<tg::Tensor(const std::vector<tg::Tensor>&)>& f,
                    std::optional<Tolerance> tolerance = std::nullopt) {
  bool any_with_dims = false;
  for (const tg::Tensor& t : inputs) any_with_dims = any_with_dims || t.dim() > 0;
  std::vector<tg::Tensor> gpu_inputs;
  for (const tg::Tensor& t : inputs) gpu_inputs.push_back(t.dim() == 0 && t.is_cpu() && any_with_dims ? t : on_gpu(t));
  tg::Tensor expected;
  try {
    expected = f(inputs);
  } catch (const tg::NotImplementedError&) {
    CHECK_THROWS_AS(f(gpu_inputs), tg::NotImplementedError);
    return;
  } catch (const tg::Error&) {
    CHECK_THROWS_AS(f(gpu_inputs), tg::Error);
    return;
  }
  const tg::Tensor actual = f(gpu_inputs);
  check_same(expected, actual, what, tolerance.value_or(tolerance_for(expected.scalar_type())));
}

}  // namespace cuda_test
