// The optimizers against their update rules written out in double precision for a few steps
// (each rule as torch.optim documents it), with parameter groups and per-group options,
// closures, zero_grad, and bad options.
#include <cmath>
#include <functional>
#include <vector>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;
namespace optim = tg::optim;

namespace {

void check_close(const Values& actual, const Values& expected, double tolerance = 1e-10) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) CHECK(actual[i] == doctest::Approx(expected[i]).epsilon(tolerance));
}

const Values kStart = {1.0, -2.0, 0.5};

// The linear part of the loss at step t: loss = sum(p^2 / 2 + c * p), so grad = p + c.
Values linear_part(size_t t) {
  Values c(3);
  for (size_t j = 0; j < 3; ++j) c[j] = 0.3 * static_cast<double>(j + 1) - 0.2 * static_cast<double>(t);
  return c;
}

// Fills param.grad() by a backward pass through the loss of step t.
void backward_at(const Tensor& param, size_t t) {
  Tensor c = make(linear_part(t), {3}, tg::kDouble);
  (param * param * 0.5 + param * c).sum().backward();
}

using Rule = std::function<void(size_t t, Values& p, const Values& g)>;

// `steps` steps of `optimizer` over `param` against `rule` applied to the expected values.
void compare(optim::Optimizer& optimizer, const Tensor& param, const Rule& rule, size_t steps = 4) {
  Values p = kStart;
  for (size_t t = 0; t < steps; ++t) {
    CAPTURE(t);
    optimizer.zero_grad();
    backward_at(param, t);
    Values g(3);
    const Values c = linear_part(t);
    for (size_t j = 0; j < 3; ++j) g[j] = p[j] + c[j];
    optimizer.step();
    rule(t, p, g);
    check_close(values(param), p);
  }
}

Tensor fresh_param() { return make(kStart, {3}, tg::kDouble).requires_grad_(); }

}  // namespace

TEST_CASE("optim: SGD plain, with momentum + dampening + weight decay, and Nesterov") {
  {
    Tensor w = fresh_param();
    optim::SGD sgd({w}, optim::SGDOptions(0.1));
    compare(sgd, w, [](size_t, Values& p, const Values& g) {
      for (size_t j = 0; j < 3; ++j) p[j] -= 0.1 * g[j];
    });
  }
  for (bool nesterov : {false, true}) {
    CAPTURE(nesterov);
    Tensor w = fresh_param();
    const double lr = 0.05, momentum = 0.9, dampening = nesterov ? 0.0 : 0.3, wd = 0.01;
    optim::SGD sgd({w},
                   optim::SGDOptions(lr).momentum(momentum).dampening(dampening).weight_decay(wd).nesterov(nesterov));
    Values buf(3);
    compare(sgd, w, [&](size_t t, Values& p, const Values& g) {
      for (size_t j = 0; j < 3; ++j) {
        double d = g[j] + wd * p[j];
        buf[j] = t == 0 ? d : momentum * buf[j] + (1 - dampening) * d;
        d = nesterov ? d + momentum * buf[j] : buf[j];
        p[j] -= lr * d;
      }
    });
    auto& state = static_cast<optim::SGDParamState&>(*sgd.state().at(w.unsafeGetTensorImpl()));
    check_close(values(state.momentum_buffer()), buf);
  }
}

TEST_CASE("optim: Adam and AdamW, with and without amsgrad") {
  for (bool decoupled : {false, true}) {
    for (bool amsgrad : {false, true}) {
      CAPTURE(decoupled);
      CAPTURE(amsgrad);
      Tensor w = fresh_param();
      const double lr = 0.02, b1 = 0.8, b2 = 0.95, eps = 1e-6, wd = 0.05;
      std::unique_ptr<optim::Optimizer> opt;
      if (decoupled) {
        opt = std::make_unique<optim::AdamW>(
            std::vector<Tensor>{w}, optim::AdamWOptions(lr).betas({b1, b2}).eps(eps).weight_decay(wd).amsgrad(amsgrad));
      } else {
        opt = std::make_unique<optim::Adam>(
            std::vector<Tensor>{w}, optim::AdamOptions(lr).betas({b1, b2}).eps(eps).weight_decay(wd).amsgrad(amsgrad));
      }
      Values m(3), v(3), vmax(3);
      compare(*opt, w, [&](size_t t, Values& p, const Values& grad) {
        const double n = static_cast<double>(t + 1);
        for (size_t j = 0; j < 3; ++j) {
          double g = grad[j];
          if (decoupled) {
            p[j] *= 1 - lr * wd;
          } else {
            g += wd * p[j];
          }
          m[j] = b1 * m[j] + (1 - b1) * g;
          v[j] = b2 * v[j] + (1 - b2) * g * g;
          vmax[j] = std::max(vmax[j], v[j]);
          const double second = amsgrad ? vmax[j] : v[j];
          const double m_hat = m[j] / (1 - std::pow(b1, n)), v_hat = second / (1 - std::pow(b2, n));
          p[j] -= lr * m_hat / (std::sqrt(v_hat) + eps);
        }
      });
      auto& state = static_cast<optim::AdamParamState&>(*opt->state().at(w.unsafeGetTensorImpl()));
      CHECK(state.step() == 4);
      check_close(values(state.exp_avg()), m);
      CHECK(state.max_exp_avg_sq().defined() == amsgrad);
    }
  }
  // LibTorch's defaults.
  CHECK(optim::AdamOptions().lr() == 1e-3);
  CHECK(std::get<1>(optim::AdamOptions().betas()) == 0.999);
  CHECK(optim::AdamWOptions().weight_decay() == 1e-2);
}

TEST_CASE("optim: RMSprop plain, centered and with momentum") {
  for (bool centered : {false, true}) {
    for (double momentum : {0.0, 0.7}) {
      CAPTURE(centered);
      CAPTURE(momentum);
      Tensor w = fresh_param();
      const double lr = 0.01, alpha = 0.9, eps = 1e-8, wd = 0.1;
      optim::RMSprop opt(
          {w}, optim::RMSpropOptions(lr).alpha(alpha).eps(eps).weight_decay(wd).momentum(momentum).centered(centered));
      Values sq(3), avg(3), buf(3);
      compare(opt, w, [&](size_t, Values& p, const Values& grad) {
        for (size_t j = 0; j < 3; ++j) {
          const double g = grad[j] + wd * p[j];
          sq[j] = alpha * sq[j] + (1 - alpha) * g * g;
          double denominator;
          if (centered) {
            avg[j] = alpha * avg[j] + (1 - alpha) * g;
            denominator = std::sqrt(sq[j] - avg[j] * avg[j]) + eps;
          } else {
            denominator = std::sqrt(sq[j]) + eps;
          }
          if (momentum > 0) {
            buf[j] = momentum * buf[j] + g / denominator;
            p[j] -= lr * buf[j];
          } else {
            p[j] -= lr * g / denominator;
          }
        }
      });
    }
  }
}

TEST_CASE("optim: Adagrad with lr_decay, weight decay and an initial accumulator") {
  Tensor w = fresh_param();
  const double lr = 0.1, lr_decay = 0.05, wd = 0.02, initial = 0.3, eps = 1e-10;
  optim::Adagrad opt(
      {w}, optim::AdagradOptions(lr).lr_decay(lr_decay).weight_decay(wd).initial_accumulator_value(initial).eps(eps));
  Values sum(3, initial);
  compare(opt, w, [&](size_t t, Values& p, const Values& grad) {
    const double clr = lr / (1 + static_cast<double>(t) * lr_decay);
    for (size_t j = 0; j < 3; ++j) {
      const double g = grad[j] + wd * p[j];
      sum[j] += g * g;
      p[j] -= clr * g / (std::sqrt(sum[j]) + eps);
    }
  });
}

TEST_CASE("optim: parameter groups with their own options; parameters without gradients are left alone") {
  Tensor a = make({1, 2}, {2}).requires_grad_(), b = make({3}, {1}).requires_grad_(),
         c = make({5}, {1}).requires_grad_();
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{a});
  groups.emplace_back(std::vector<Tensor>{b, c}, std::make_unique<optim::SGDOptions>(optim::SGDOptions(1.0)));
  optim::SGD sgd(groups, optim::SGDOptions(0.5));
  REQUIRE(sgd.param_groups().size() == 2);
  CHECK(sgd.param_groups()[0].options().get_lr() == 0.5);  // the defaults
  CHECK(sgd.param_groups()[1].options().get_lr() == 1.0);
  CHECK(sgd.size() == 3);
  (a.sum() + b.sum() * 2).backward();  // c gets no gradient
  sgd.step();
  CHECK(values(a) == Values{0.5, 1.5});
  CHECK(values(b) == Values{1});
  CHECK(values(c) == Values{5});
  // zero_grad: to undefined by default, to zeros on request.
  sgd.zero_grad(/*set_to_none=*/false);
  CHECK(values(a.grad()) == Values{0, 0});
  sgd.zero_grad();
  CHECK_FALSE(a.grad().defined());
  // add_param_group takes the defaults; a parameter twice is refused.
  Tensor d = make({1}, {1}).requires_grad_();
  sgd.add_param_group(optim::OptimizerParamGroup({d}));
  CHECK(sgd.param_groups()[2].options().get_lr() == 0.5);
  CHECK(contains(thrown<tg::ValueError>([&] { sgd.add_param_group(optim::OptimizerParamGroup({a})); }),
                 "[SGD] expected each parameter in one group only"));
  // add_parameters extends the first group, with the same checks.
  Tensor e = make({1}, {1}).requires_grad_();
  sgd.add_parameters({e});
  CHECK(sgd.param_groups()[0].params().size() == 2);
  CHECK(sgd.parameters()[1].is_same(e));
  CHECK(contains(thrown<tg::ValueError>([&] { sgd.add_parameters({c}); }),
                 "[SGD] expected each parameter in one group only"));
  CHECK(sgd.size() == 5);
  CHECK(contains(thrown<tg::ValueError>([&] { optim::SGD({make({1}, {1}, tg::kLong)}, 0.1); }),
                 "[SGD] expected floating-point parameters, got int64"));
}

TEST_CASE("optim: step(closure) evaluates the loss with grad mode on and returns it") {
  Tensor w = make({2}, {1}).requires_grad_();
  optim::SGD sgd({w}, 0.25);
  tg::NoGradGuard no_grad;  // the closure turns grad mode back on, as LibTorch's does
  int calls = 0;
  Tensor loss = sgd.step([&] {
    ++calls;
    sgd.zero_grad();
    Tensor l = (w * w).sum();
    l.backward();
    return l;
  });
  CHECK(calls == 1);
  CHECK(loss.item<double>() == 4);
  CHECK(values(w) == Values{1});  // 2 - 0.25 * 4
}

TEST_CASE("optim: bad options are clear errors") {
  Tensor w = fresh_param();
  CHECK(contains(thrown<tg::ValueError>([&] { optim::SGD({w}, optim::SGDOptions(0.1).nesterov(true)); }),
                 "[SGD] Nesterov momentum requires a momentum and zero dampening, got momentum=0"));
  CHECK(contains(thrown<tg::ValueError>([&] { optim::SGD({w}, -1.0); }),
                 "[SGD] expected a non-negative learning rate, got -1"));
  CHECK(contains(thrown<tg::ValueError>([&] {
                   optim::Adam({w}, optim::AdamOptions().betas({1.0, 0.9}));
                 }),
                 "[Adam] expected beta1 in [0, 1), got 1"));
  CHECK(contains(thrown<tg::ValueError>([&] { optim::AdamW({w}, optim::AdamWOptions().eps(-1)); }),
                 "[AdamW] expected a non-negative epsilon, got -1"));
  CHECK(contains(thrown<tg::ValueError>([&] { optim::RMSprop({w}, optim::RMSpropOptions().momentum(-0.5)); }),
                 "[RMSprop] expected a non-negative momentum"));
  CHECK(contains(thrown<tg::ValueError>([&] { optim::Adagrad({w}, optim::AdagradOptions().lr_decay(-1)); }),
                 "[Adagrad] expected a non-negative lr_decay"));
  // Options changed on a group after construction are checked at the step.
  optim::SGD sgd({w}, 0.1);
  static_cast<optim::SGDOptions&>(sgd.param_groups()[0].options()).momentum(-1);
  backward_at(w, 0);
  CHECK(contains(thrown<tg::ValueError>([&] { sgd.step(); }), "[SGD] expected a non-negative momentum, got -1"));
}

TEST_CASE("optim: parameters of different dtypes step in separate fused batches") {
  for (bool adam : {false, true}) {
    CAPTURE(adam);
    Tensor a = make({1, 2}, {2}, tg::kFloat).requires_grad_(), b = make({3}, {1}, tg::kDouble).requires_grad_();
    std::unique_ptr<optim::Optimizer> opt;
    if (adam) {
      opt = std::make_unique<optim::Adam>(std::vector<Tensor>{a, b}, optim::AdamOptions(0.1));
    } else {
      opt = std::make_unique<optim::SGD>(std::vector<Tensor>{a, b}, optim::SGDOptions(0.1).momentum(0.9));
    }
    Values p = {1, 2, 3}, buf(3), m(3), v(3);
    for (int t = 1; t <= 3; ++t) {
      opt->zero_grad();
      ((a * a).sum() + (b * b).sum()).backward();  // grad = 2p
      opt->step();
      for (size_t j = 0; j < 3; ++j) {
        const double g = 2 * p[j];
        if (adam) {
          m[j] = 0.9 * m[j] + 0.1 * g;
          v[j] = 0.999 * v[j] + 0.001 * g * g;
          p[j] -= 0.1 * (m[j] / (1 - std::pow(0.9, t))) / (std::sqrt(v[j] / (1 - std::pow(0.999, t))) + 1e-8);
        } else {
          buf[j] = t == 1 ? g : 0.9 * buf[j] + g;
          p[j] -= 0.1 * buf[j];
        }
      }
      check_close(values(a), {p[0], p[1]}, 1e-6);
      check_close(values(b), {p[2]}, 1e-12);
    }
    CHECK(a.scalar_type() == tg::kFloat);
  }
}
