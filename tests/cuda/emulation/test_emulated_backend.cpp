// The CUDA backend on the emulated device: operators launch real kernels there, the fused
// optimizer steps never make the host wait (Note [No host reads in optimizer steps]), and
// neither do the index checks (Note [Index checks on the device]).
#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "cuda/emulation/observe.h"
#include "cuda/emulation/runtime_api.h"
#include "cuda/index_check.h"
#include "cuda/index_ops.h"

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
  // Step counts on the CPU are read from host memory (no wait either) and give the same update.
  std::vector<tg::Tensor> p2{filled({3, 7}, 1.0)}, g2{filled({3, 7}, 0.5)}, m2{filled({3, 7}, 0.0)}, v2{filled({3, 7}, 0.0)};
  std::vector<tg::Tensor> host_steps{tg::full({1}, 3.0)};
  const int64_t waits_before_host_steps = emu::host_wait_count();
  tg::_fused_adam_(p2, g2, m2, v2, {}, host_steps, 0.1, 0.9, 0.999, 0.0, 1e-8, false, false, scale, found_none);
  CHECK(emu::host_wait_count() == waits_before_host_steps);
  CHECK(p2[0].to(tg::kCPU).data_ptr<float>()[0] == params[0].to(tg::kCPU).data_ptr<float>()[0]);
}

namespace {

// What `call` threw, as "<IndexError>message", or "" when it did not throw.
template <typename F>
std::string index_error_of(F&& call) {
  try {
    call();
  } catch (const tg::IndexError& e) {
    return "<IndexError>" + std::string(e.what());
  } catch (const std::exception& e) {
    return "<other>" + std::string(e.what());
  }
  return "";
}

}  // namespace

TEST_CASE("index bounds are checked on the device: no host wait, a bad index is an IndexError at the next check") {
  const tg::Tensor x = tg::arange(0, 24, 1, tg::TensorOptions().dtype(tg::kFloat)).reshape({4, 6});
  const tg::Tensor gx = x.to(kGpu);
  const tg::Tensor index = tg::tensor<int64_t>({0, 5, 2}), gather_index = tg::tensor<int64_t>({1, 0, 5, 5}).reshape({1, 4});
  const tg::Tensor g_index = index.to(kGpu), g_gather_index = gather_index.to(kGpu);
  const tg::Tensor source = tg::full({4, 3}, 2.0, tg::TensorOptions().dtype(tg::kFloat));
  const tg::Tensor g_source = source.to(kGpu);
  const int64_t waits = emu::host_wait_count();
  const tg::Tensor selected = tg::index_select(gx, 1, g_index);
  const tg::Tensor added = tg::index_add(gx, 1, g_index, g_source);
  const tg::Tensor gathered = tg::gather(gx, 1, g_gather_index);
  const tg::Tensor scattered = tg::scatter_add(gx, 1, g_gather_index, gathered);
  CHECK(emu::host_wait_count() == waits);  // the indices never went to the host
  CHECK(tg::equal(selected.to(tg::kCPU), tg::index_select(x, 1, index)));
  CHECK(tg::equal(added.to(tg::kCPU), tg::index_add(x, 1, index, source)));
  CHECK(tg::equal(gathered.to(tg::kCPU), tg::gather(x, 1, gather_index)));
  CHECK(tg::equal(scattered.to(tg::kCPU), tg::scatter_add(x, 1, gather_index, tg::gather(x, 1, gather_index))));

  // A bad index is the CPU kernel's IndexError, reported by the launching call here (its kernel
  // has run when the launch returns), and only once: the next call works.
  const std::string select_error = index_error_of([&] { tg::index_select(gx, 1, tg::tensor<int64_t>({7}).to(kGpu)); });
  CHECK(select_error.find("<IndexError>[index_select] index 7 is out of range for a dim of size 6") == 0);
  CHECK(select_error.find("found by a CUDA kernel") != std::string::npos);
  const std::string gather_error =
      index_error_of([&] { tg::gather(gx, 1, tg::tensor<int64_t>({-1}).reshape({1, 1}).to(kGpu)); });
  CHECK(gather_error.find("<IndexError>[gather] index -1 is out of bounds for dimension 1 with size 6") == 0);
  const std::string add_error = index_error_of(
      [&] { tg::index_add(gx, 0, tg::tensor<int64_t>({4}).to(kGpu), tg::ones({1, 6}, tg::TensorOptions().device(kGpu))); });
  CHECK(add_error.find("<IndexError>[index_add] index 4 is out of range for a dim of size 4") == 0);
  CHECK(index_error_of([&] { (void)tg::index_select(gx, 1, g_index).to(tg::kCPU); }).empty());
  const tg::Tensor plane = tg::ones({1, 1, 4, 4}, tg::TensorOptions().device(kGpu));
  const std::string pool_error = index_error_of([&] {
    tg::max_pool2d_with_indices_backward(tg::ones({1, 1, 2, 2}, tg::TensorOptions().device(kGpu)), plane, {2, 2}, {2, 2},
                                         {0, 0}, {1, 1}, false, tg::tensor<int64_t>({0, 3, 16, 9}).reshape({1, 1, 2, 2}).to(kGpu));
  });
  CHECK(pool_error.find("<IndexError>[max_pool2d_backward] index 16 is out of range for an input plane of 16 "
                        "elements") == 0);

  // Reported lazily: a kernel launched with no check after it (as on a GPU, where it has not
  // finished yet) is reported by the next check, here the next device-to-host copy.
  tg::Tensor out = tg::empty({4, 1}, tg::TensorOptions().dtype(tg::kFloat).device(kGpu));
  const tg::Tensor bad = tg::tensor<int64_t>({9}).to(kGpu);
  tg::cuda::launch_index_select(4, gx.data_ptr(), out.data_ptr(), bad.data_ptr<int64_t>(), tg::blocks_around(gx.sizes(), 1), 1);
  const std::string lazy = index_error_of([&] { (void)tg::ones({2}, tg::TensorOptions().device(kGpu)).to(tg::kCPU); });
  CHECK(lazy.find("<IndexError>[index_select] index 9 is out of range for a dim of size 6") == 0);
  CHECK(index_error_of([&] { tg::cuda::check_index_errors(0); }).empty());
}

TEST_CASE("advanced indexing (index, index_put_) checks its indices on the device as well") {
  const tg::Tensor x = tg::arange(0, 24, 1, tg::TensorOptions().dtype(tg::kFloat)).reshape({4, 6});
  const tg::Tensor gx = x.to(kGpu);
  const tg::Tensor rows = tg::tensor<int64_t>({3, -1, 3}), cols = tg::tensor<int64_t>({5});
  const tg::Tensor g_rows = rows.to(kGpu), g_cols = cols.to(kGpu);
  tg::Tensor sums = tg::zeros({4, 6}, tg::TensorOptions().dtype(tg::kFloat).device(kGpu));
  const tg::Tensor g_ones = tg::ones({1}, tg::TensorOptions().dtype(tg::kFloat).device(kGpu));
  const int64_t waits = emu::host_wait_count();
  const tg::Tensor picked = tg::index(gx, {g_rows, g_cols});
  tg::index_put_(sums, {g_rows}, g_ones, /*accumulate=*/true);
  CHECK(emu::host_wait_count() == waits);  // integer indices never go to the host
  CHECK(tg::equal(picked.to(tg::kCPU), tg::index(x, {rows, cols})));
  CHECK(tg::equal(sums.to(tg::kCPU), tg::index_put(tg::zeros({4, 6}), {rows}, tg::ones({1}), true)));  // row 3 twice
  const std::string error = index_error_of([&] { tg::index(gx, {std::nullopt, tg::tensor<int64_t>({-7}).to(kGpu)}); });
  CHECK(error.find("<IndexError>[index] index -7 is out of bounds for dimension 1 with size 6") == 0);
  const std::string put_error = index_error_of([&] { tg::index_put_(sums, {tg::tensor<int64_t>({4}).to(kGpu)}, g_ones); });
  CHECK(put_error.find("<IndexError>[index_put_] index 4 is out of bounds for dimension 0 with size 4") == 0);
}

TEST_CASE("index_fill, index_copy and scatter plan their writes on the device: no host wait") {
  const tg::Tensor x = tg::arange(0, 24, 1, tg::TensorOptions().dtype(tg::kFloat)).reshape({4, 6});
  const tg::Tensor gx = x.to(kGpu);
  const tg::Tensor rows = tg::tensor<int64_t>({3, -4, 3}), copy_rows = tg::tensor<int64_t>({3, 0, 3});
  const tg::Tensor source = tg::arange(100, 118, 1, tg::TensorOptions().dtype(tg::kFloat)).reshape({3, 6});
  const tg::Tensor scatter_index = tg::tensor<int64_t>({5, 5, 0, 5}).reshape({1, 4}), src = tg::full({1, 4}, -1.0);
  const tg::Tensor g_rows = rows.to(kGpu), g_copy_rows = copy_rows.to(kGpu), g_source = source.to(kGpu);
  const tg::Tensor g_scatter_index = scatter_index.to(kGpu), g_src = src.to(kGpu);
  const int64_t waits = emu::host_wait_count();
  const tg::Tensor filled_rows = tg::index_fill(gx, 0, g_rows, 7.0);
  const tg::Tensor copied = tg::index_copy(gx, 0, g_copy_rows, g_source);
  const tg::Tensor scattered = tg::scatter(gx, 1, g_scatter_index, g_src);
  const tg::Tensor scattered_value = tg::scatter(gx, 1, g_scatter_index, 2.5);
  CHECK(emu::host_wait_count() == waits);  // no index value went to the host
  CHECK(tg::equal(filled_rows.to(tg::kCPU), tg::index_fill(x, 0, rows, 7.0)));
  CHECK(tg::equal(copied.to(tg::kCPU), tg::index_copy(x, 0, copy_rows, source)));  // row 3 from source row 2
  CHECK(copied.to(tg::kCPU).contiguous().data_ptr<float>()[18] == 112.0f);
  CHECK(tg::equal(scattered.to(tg::kCPU), tg::scatter(x, 1, scatter_index, src)));
  CHECK(tg::equal(scattered_value.to(tg::kCPU), tg::scatter(x, 1, scatter_index, 2.5)));
  // A bad index is reported by the kernel that reads it (Note [Write plans on the device]).
  const std::string fill_error = index_error_of([&] { tg::index_fill(gx, 0, tg::tensor<int64_t>({-5}).to(kGpu), 1); });
  CHECK(fill_error.find("<IndexError>[index_add] index -5 is out of range for a dim of size 4") == 0);
  const std::string scatter_error =
      index_error_of([&] { tg::scatter(gx, 1, tg::tensor<int64_t>({6}).reshape({1, 1}).to(kGpu), 0); });
  CHECK(scatter_error.find("<IndexError>[scatter_add] index 6 is out of bounds for dimension 1 with size 6") == 0);
}

TEST_CASE("embedding's backward and the NLL loss check their indices on the device: no host wait") {
  const tg::Tensor grad = tg::arange(0, 12, 1, tg::TensorOptions().dtype(tg::kFloat)).reshape({4, 3});
  const tg::Tensor indices = tg::tensor<int64_t>({2, 0, 2, 4});
  const tg::Tensor logits = tg::arange(0, 15, 1, tg::TensorOptions().dtype(tg::kFloat)).reshape({3, 5}) * 0.1;
  const tg::Tensor target = tg::tensor<int64_t>({4, -100, 1});
  const tg::Tensor g_grad = grad.to(kGpu), g_indices = indices.to(kGpu), g_target = target.to(kGpu);
  tg::Tensor g_logits = logits.to(kGpu);
  g_logits.requires_grad_();
  const int64_t waits = emu::host_wait_count();
  const tg::Tensor by_frequency = tg::embedding_dense_backward(g_grad, g_indices, 5, 0, true);
  const tg::Tensor plain = tg::embedding_dense_backward(g_grad, g_indices, 5, -1, false);
  const tg::Tensor loss = tg::nll_loss(g_logits, g_target);
  loss.backward();
  CHECK(emu::host_wait_count() == waits);  // neither the indices nor the targets went to the host
  CHECK(tg::equal(by_frequency.to(tg::kCPU), tg::embedding_dense_backward(grad, indices, 5, 0, true)));
  CHECK(tg::equal(plain.to(tg::kCPU), tg::embedding_dense_backward(grad, indices, 5, -1, false)));
  tg::Tensor logits_cpu = logits.clone();
  logits_cpu.requires_grad_();
  const tg::Tensor loss_cpu = tg::nll_loss(logits_cpu, target);
  loss_cpu.backward();
  CHECK(loss.item<double>() == doctest::Approx(loss_cpu.item<double>()));
  CHECK(tg::allclose(g_logits.grad().to(tg::kCPU), logits_cpu.grad()));

  // A bad value is the CPU kernel's IndexError (the launching call reports it here).
  const std::string embedding_error =
      index_error_of([&] { tg::embedding_dense_backward(g_grad, tg::tensor<int64_t>({0, 5, 1, 1}).to(kGpu), 5, -1, true); });
  CHECK(embedding_error.find("<IndexError>[embedding_backward] index 5 is out of range for 5 embeddings") == 0);
  CHECK(embedding_error.find("found by a CUDA kernel") != std::string::npos);
  const std::string nll_error = index_error_of([&] { tg::nll_loss(g_logits.detach(), tg::tensor<int64_t>({0, 5, -1}).to(kGpu)); });
  CHECK(nll_error.find("<IndexError>[nll_loss] target 5 is out of bounds: expected a class index in [0, 5) or "
                       "ignore_index (-100)") == 0);
  const tg::Tensor grad_loss = tg::ones({}, tg::TensorOptions().device(kGpu));
  const std::string backward_error = index_error_of([&] {
    tg::nll_loss_backward(grad_loss, g_logits.detach(), tg::tensor<int64_t>({0, -3, 1}).to(kGpu), std::nullopt, 1, -100,
                          tg::ones({}, tg::TensorOptions().device(kGpu)));
  });
  CHECK(backward_error.find("<IndexError>[nll_loss_backward] target -3 is out of bounds") == 0);
  CHECK(index_error_of([&] { (void)tg::ones({2}, tg::TensorOptions().device(kGpu)).to(tg::kCPU); }).empty());
}
