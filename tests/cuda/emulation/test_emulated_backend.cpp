// The CUDA backend on the emulated device: operators launch real kernels there, and the fused
// optimizer steps never make the host wait (Note [No host reads in optimizer steps]).
#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "cuda/emulation/observe.h"
#include "cuda/emulation/runtime_api.h"

namespace emu = tg::cuda::emu;

namespace {

const tg::Device kGpu(tg::kCUDA, 0);

tg::Tensor filled(std::vector<int64_t> sizes, double value, tg::Device device = kGpu) {
  return tg::full(sizes, value, tg::TensorOptions().dtype(tg::kFloat).device(device));
}

}  // namespace

TEST_CASE("operators on CUDA tensors launch kernels on the emulated device") {
  REQUIRE(tg::cuda::is_available());
  const int64_t before = emu::launch_count(0);
  const tg::Tensor sum = (filled({4, 5}, 1.5) * filled({4, 5}, 2.0)).sum();
  CHECK(emu::launch_count(0) >= before + 2);
  CHECK(sum.to(tg::kCPU).item<double>() == doctest::Approx(60.0));
}

TEST_CASE("fused optimizer steps read found_inf, grad_scale and steps on the device: no host wait") {
  const tg::Tensor found_none = filled({1}, 0.0), found_inf = filled({1}, 1.0), scale = filled({1}, 4.0);
  std::vector<tg::Tensor> params{filled({3, 7}, 1.0), filled({5}, -2.0)};
  std::vector<tg::Tensor> grads{filled({3, 7}, 0.5), filled({5}, 0.25)};
  std::vector<tg::Tensor> avgs{filled({3, 7}, 0.0), filled({5}, 0.0)}, sqs{filled({3, 7}, 0.0), filled({5}, 0.0)};
  std::vector<tg::Tensor> steps{filled({1}, 3.0), filled({1}, 1.0)};
  const auto adam = [&](const tg::Tensor& found) {
    tg::_fused_adam_(params, grads, avgs, sqs, {}, steps, 0.1, 0.9, 0.999, 0.0, 1e-8, false, false, scale, found);
  };
  const int64_t waits = emu::host_wait_count();
  adam(found_inf);
  tg::_fused_sgd_(params, grads, {}, 0.0, 0.0, 0.1, 0.0, false, false, false, scale, found_inf);
  CHECK(emu::host_wait_count() == waits);  // nothing read back
  // found_inf set: the parameters and gradients are untouched.
  CHECK(params[0].to(tg::kCPU).data_ptr<float>()[0] == 1.0f);
  CHECK(grads[1].to(tg::kCPU).data_ptr<float>()[4] == 0.25f);
  const int64_t waits_after_reads = emu::host_wait_count();
  adam(found_none);
  CHECK(emu::host_wait_count() == waits_after_reads);
  // The step ran with the unscaled gradient (0.5 / 4) and step 3 on the device: Adam's first
  // update moves each parameter by lr * m_hat / (sqrt(v_hat) + eps) ~= lr for a constant grad.
  const double moved = 1.0 - params[0].to(tg::kCPU).data_ptr<float>()[0];
  const double m = 0.1 * 0.125, v = 0.001 * 0.125 * 0.125;
  const double expected = 0.1 / (1 - 0.9 * 0.9 * 0.9) * m / (std::sqrt(v) / std::sqrt(1 - 0.999 * 0.999 * 0.999) + 1e-8);
  CHECK(moved == doctest::Approx(expected).epsilon(1e-4));
  CHECK(grads[0].to(tg::kCPU).data_ptr<float>()[0] == 0.125f);  // unscaled in place
}
