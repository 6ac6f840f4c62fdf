// Learning-rate schedulers against their closed forms (torch.optim.lr_scheduler's epoch
// counting, Note [Scheduler epochs]), and gradient clipping by norm and by value.
#include <cmath>
#include <limits>
#include <numbers>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;
namespace optim = tg::optim;

namespace {

// The lr of group 0 after construction and after each of `steps` scheduler steps.
template <typename Scheduler, typename... Args>
std::vector<double> schedule(int steps, Args... args) {
  Tensor w = make({1}, {1}).requires_grad_();
  optim::SGD sgd({w}, 0.8);
  Scheduler scheduler(sgd, args...);
  std::vector<double> lrs = {sgd.param_groups()[0].options().get_lr()};
  for (int i = 0; i < steps; ++i) {
    sgd.step();
    scheduler.step();
    lrs.push_back(sgd.param_groups()[0].options().get_lr());
    CHECK(scheduler.get_last_lr()[0] == lrs.back());
    CHECK(scheduler.last_epoch() == i + 1);
  }
  return lrs;
}

void check_close(const std::vector<double>& actual, const std::vector<double>& expected) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    CAPTURE(i);
    CHECK(actual[i] == doctest::Approx(expected[i]).epsilon(1e-12));
  }
}

}  // namespace

TEST_CASE("optim_schedulers: StepLR and MultiStepLR decay after the named epochs") {
  check_close(schedule<optim::StepLR>(6, 2u, 0.5), {0.8, 0.8, 0.4, 0.4, 0.2, 0.2, 0.1});
  check_close(schedule<optim::MultiStepLR>(6, std::vector<int64_t>{1, 4}, 0.1),
              {0.8, 0.08, 0.08, 0.08, 0.008, 0.008, 0.008});
  CHECK(contains(thrown<tg::ValueError>([] { schedule<optim::StepLR>(1, 0u, 0.5); }),
                 "[StepLR] expected a positive step_size, got 0"));
  CHECK(contains(thrown<tg::ValueError>([] {
                   schedule<optim::MultiStepLR>(1, std::vector<int64_t>{3, 1}, 0.1);
                 }),
                 "[MultiStepLR] expected milestones in increasing order"));
}

TEST_CASE("optim_schedulers: CosineAnnealingLR follows the half cosine to eta_min and back") {
  std::vector<double> expected;
  for (int t = 0; t <= 8; ++t) expected.push_back(0.1 + (0.8 - 0.1) * (1 + std::cos(std::numbers::pi * t / 4)) / 2);
  check_close(schedule<optim::CosineAnnealingLR>(8, int64_t{4}, 0.1), expected);
  CHECK(expected[4] == doctest::Approx(0.1));
}

TEST_CASE("optim_schedulers: LinearLR ramps from start_factor to end_factor, then holds") {
  check_close(schedule<optim::LinearLR>(5, 0.25, 1.0, int64_t{3}), {0.2, 0.4, 0.6, 0.8, 0.8, 0.8});
  CHECK(contains(thrown<tg::ValueError>([] { schedule<optim::LinearLR>(1, 0.0, 1.0, int64_t{3}); }),
                 "[LinearLR] expected start_factor in (0, 1], got 0"));
}

TEST_CASE("optim_schedulers: every group follows its own base rate") {
  Tensor a = make({1}, {1}).requires_grad_(), b = make({1}, {1}).requires_grad_();
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{a});
  groups.emplace_back(std::vector<Tensor>{b}, std::make_unique<optim::AdamOptions>(0.01));
  optim::Adam adam(groups, optim::AdamOptions(0.1));
  optim::StepLR scheduler(adam, 1, 0.5);
  scheduler.step();
  CHECK(scheduler.get_last_lr() == std::vector<double>{0.05, 0.005});
}

TEST_CASE("optim_clip_grad: clip_grad_norm_ scales all gradients together, returns the norm before") {
  Tensor a = make({0, 0}, {2}).requires_grad_(), b = make({0}, {1}).requires_grad_();
  Tensor unused = make({0}, {1}).requires_grad_();
  ((a * make({3, 4}, {2})).sum() + (b * 12).sum()).backward();  // grads [3, 4] and [12]: 2-norm 13
  const double norm = tg::nn::utils::clip_grad_norm_({a, b, unused}, 6.5);
  CHECK(norm == doctest::Approx(13));
  const double scale = 6.5 / (13 + 1e-6);
  CHECK(values(a.grad())[0] == doctest::Approx(3 * scale));
  CHECK(values(a.grad())[1] == doctest::Approx(4 * scale));
  CHECK(values(b.grad())[0] == doctest::Approx(12 * scale));
  // Below max_norm nothing changes; the 1-norm and the infinity norm.
  CHECK(tg::nn::utils::clip_grad_norm_(std::vector<Tensor>{a, b}, 100.0, 1.0) == doctest::Approx((3 + 4 + 12) * scale));
  CHECK(values(b.grad())[0] == doctest::Approx(12 * scale));
  CHECK(tg::nn::utils::clip_grad_norm_(b, 1.0, std::numeric_limits<double>::infinity()) == doctest::Approx(12 * scale));
  CHECK(values(b.grad())[0] == doctest::Approx(1.0).epsilon(1e-5));
}

TEST_CASE("optim_clip_grad: a non-finite norm raises only when asked; clip_grad_value_ clamps") {
  Tensor a = make({0, 0}, {2}).requires_grad_();
  a.mutable_grad() = make({std::numeric_limits<double>::infinity(), 1}, {2});
  CHECK(contains(thrown<tg::ValueError>([&] { tg::nn::utils::clip_grad_norm_(a, 1.0, 2.0, true); }),
                 "The total norm of order 2 for gradients from `parameters` is non-finite"));
  CHECK(std::isinf(tg::nn::utils::clip_grad_norm_(a, 1.0)));

  Tensor w = make({0, 0, 0}, {3}).requires_grad_();
  w.mutable_grad() = make({-5, 0.5, 7}, {3});
  tg::nn::utils::clip_grad_value_(w, 1.0);
  CHECK(values(w.grad()) == Values{-1, 0.5, 1});
}
