// The fused optimizer steps against their update rules written out by hand, the gradient
// scaling and inf-skipping of mixed precision, and a small model trained end to end with the
// nn operators and _fused_adamw_ (its loss must fall).
#include <cmath>
#include <vector>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;

namespace {

void check_close(const Values& actual, const Values& expected, double tolerance = 1e-12) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) CHECK(actual[i] == doctest::Approx(expected[i]).epsilon(tolerance));
}

}  // namespace

TEST_CASE("ops_optim: _fused_sgd_ with momentum, nesterov and weight decay") {
  const Values p0 = {1, -2, 3}, g = {0.5, 0.25, -1};
  const double lr = 0.1, momentum = 0.9, wd = 0.01;
  Tensor param = make(p0, {3}, tg::kDouble), grad = make(g, {3}, tg::kDouble), buffer = tg::zeros({3}, tg::kDouble);
  Values p = p0, b(3);
  for (int step = 0; step < 3; ++step) {
    tg::_fused_sgd_({param}, {grad}, {buffer}, wd, momentum, lr, /*dampening=*/0, /*nesterov=*/true,
                    /*maximize=*/false, /*is_first_step=*/step == 0);
    for (size_t j = 0; j < 3; ++j) {
      const double d = g[j] + wd * p[j];
      b[j] = step == 0 ? d : momentum * b[j] + d;
      p[j] -= lr * (d + momentum * b[j]);
    }
    check_close(values(param), p);
    check_close(values(buffer), b);
  }
  // Plain SGD needs no buffers; maximize climbs.
  Tensor q = make({1, 1}, {2}, tg::kFloat);
  tg::_fused_sgd_({q}, {make({1, -1}, {2})}, {}, 0, 0, 0.5, 0, false, /*maximize=*/true, true);
  CHECK(values(q) == Values{1.5, 0.5});
  CHECK(contains(thrown<tg::ValueError>([&] { tg::_fused_sgd_({q}, {q}, {}, 0, 0.9, 0.1, 0, false, false, true); }),
                 "expected momentum_buffer_list to hold 1 tensors, one per parameter, got 0"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::_fused_sgd_({q}, {tg::zeros({3})}, {}, 0, 0, 0.1, 0, false, false,
                                                              true); }),
                 "expected grads[0] of the shape of parameter 0 [2], got [3]"));
}

TEST_CASE("ops_optim: _fused_adamw_ and _fused_adam_ against the update rule") {
  const double lr = 0.01, beta1 = 0.9, beta2 = 0.99, wd = 0.1, eps = 1e-8;
  for (bool amsgrad : {false, true}) {
    for (bool decoupled : {true, false}) {
      CAPTURE(amsgrad);
      CAPTURE(decoupled);
      Tensor param = make({1, -2}, {2}, tg::kDouble), m = tg::zeros({2}, tg::kDouble), v = tg::zeros({2}, tg::kDouble);
      Tensor v_max = tg::zeros({2}, tg::kDouble), step = tg::zeros({}, tg::kDouble);
      Values p = {1, -2}, mm(2), vv(2), vmax(2);
      const std::vector<Values> grads = {{0.5, -1}, {0.1, 0.3}, {-0.2, 2}};
      for (size_t t = 0; t < grads.size(); ++t) {
        step.add_(1);
        Tensor grad = make(grads[t], {2}, tg::kDouble);
        (decoupled ? tg::_fused_adamw_ : tg::_fused_adam_)({param}, {grad}, {m}, {v}, amsgrad ? tg::TensorList(v_max)
                                                                                              : tg::TensorList(),
                                                           {step}, lr, beta1, beta2, wd, eps, amsgrad, false,
                                                           std::nullopt, std::nullopt);
        const double n = static_cast<double>(t + 1);
        for (size_t j = 0; j < 2; ++j) {
          double g = grads[t][j];
          if (decoupled) {
            p[j] *= 1 - lr * wd;
          } else {
            g += wd * p[j];
          }
          mm[j] = beta1 * mm[j] + (1 - beta1) * g;
          vv[j] = beta2 * vv[j] + (1 - beta2) * g * g;
          vmax[j] = std::max(vmax[j], vv[j]);
          const double second = amsgrad ? vmax[j] : vv[j];
          p[j] -= lr / (1 - std::pow(beta1, n)) * mm[j] / (std::sqrt(second) / std::sqrt(1 - std::pow(beta2, n)) + eps);
        }
        check_close(values(param), p, 1e-10);
        check_close(values(m), mm, 1e-10);
      }
    }
  }
}

TEST_CASE("ops_optim: grad_scale unscales the gradients, found_inf skips the step") {
  Tensor param = make({1, 2}, {2}, tg::kFloat), grad = make({4, 8}, {2}), m = tg::zeros({2}), v = tg::zeros({2});
  const Tensor step = tg::ones({});
  const Values before = values(param);
  tg::_fused_adamw_({param}, {grad}, {m}, {v}, {}, {step}, 0.1, 0.9, 0.999, 0, 1e-8, false, false, tg::full({}, 4.0),
                    tg::ones({}));
  CHECK(values(param) == before);  // skipped, grads untouched
  CHECK(values(grad) == Values{4, 8});
  tg::_fused_adamw_({param}, {grad}, {m}, {v}, {}, {step}, 0.1, 0.9, 0.999, 0, 1e-8, false, false, tg::full({}, 4.0),
                    tg::zeros({}));
  CHECK(values(grad) == Values{1, 2});  // unscaled in place
  check_close(values(m), {0.1, 0.2}, 1e-6);
  // Non-contiguous parameters are updated through a copy.
  Tensor matrix = tg::zeros({3, 2}), matrix_grad = tg::ones({2, 3});
  tg::_fused_sgd_({matrix.t()}, {matrix_grad}, {}, 0, 0, 1.0, 0, false, false, true);
  CHECK(values(matrix) == Values{-1, -1, -1, -1, -1, -1});
}

TEST_CASE("ops_optim: a small attention classifier trains with _fused_adamw_") {
  // tokens -> embedding -> layer_norm -> self-attention -> dropout -> gelu MLP -> mean over
  // the sequence -> linear -> cross_entropy with label smoothing. The label is the class of the
  // first token, which the model has to learn to read through attention.
  tg::manual_seed(0);
  const int64_t vocab = 8, dim = 16, seq = 5, batch = 32, classes = 4;
  auto parameter = [](std::vector<int64_t> sizes, double scale) {
    return (tg::randn(sizes) * scale).detach().requires_grad_();
  };
  const std::vector<Tensor> params = {
      parameter({vocab, dim}, 0.5),    parameter({dim, dim}, 0.25),     parameter({dim, dim}, 0.25),
      parameter({dim, dim}, 0.25),     parameter({2 * dim, dim}, 0.25), parameter({dim, 2 * dim}, 0.2),
      parameter({classes, dim}, 0.25), tg::zeros({classes}).requires_grad_()};
  const Tensor tokens = (tg::rand({batch, seq}) * vocab).to(tg::kLong);
  Values label_values;
  for (size_t b = 0; b < static_cast<size_t>(batch); ++b) {
    label_values.push_back(static_cast<double>(static_cast<int64_t>(values(tokens)[b * seq]) % classes));
  }
  const Tensor labels = make(label_values, {batch}, tg::kLong);

  auto loss_of = [&](bool train) {
    const Tensor x = tg::embedding(params[0], tokens);
    const Tensor h = tg::layer_norm(x, {dim});
    const Tensor attended = tg::scaled_dot_product_attention(tg::linear(h, params[1]), tg::linear(h, params[2]),
                                                             tg::linear(h, params[3]));
    const Tensor residual = x + tg::dropout(attended, 0.1, train);
    const Tensor mlp = tg::linear(tg::gelu(tg::linear(residual, params[4])), params[5]);
    const Tensor pooled = (residual + mlp).mean(std::vector<int64_t>{1});
    return tg::cross_entropy_loss(tg::linear(pooled, params[6], params[7]), labels, std::nullopt,
                                  tg::Reduction::Mean, -100, /*label_smoothing=*/0.05);
  };

  std::vector<Tensor> exp_avgs, exp_avg_sqs, steps;
  for (const Tensor& p : params) {
    exp_avgs.push_back(tg::zeros_like(p));
    exp_avg_sqs.push_back(tg::zeros_like(p));
    steps.push_back(tg::zeros({}));
  }
  const double initial = [&] {
    tg::NoGradGuard no_grad;
    return loss_of(false).item<double>();
  }();
  for (int step = 0; step < 80; ++step) {
    loss_of(true).backward();
    std::vector<Tensor> grads;
    for (const Tensor& p : params) grads.push_back(p.grad());
    tg::NoGradGuard no_grad;
    for (Tensor& s : steps) s.add_(1);
    tg::_fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, {}, steps, /*lr=*/0.02, 0.9, 0.999, /*weight_decay=*/0.01,
                      1e-8, false, false, std::nullopt, std::nullopt);
    for (const Tensor& p : params) p.grad().zero_();
  }
  tg::NoGradGuard no_grad;
  const double final_loss = loss_of(false).item<double>();
  CAPTURE(initial);
  CHECK(final_loss < 0.5 * initial);
}
