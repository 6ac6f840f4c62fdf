// Anomaly detection (DetectAnomalyGuard) and the iterative freeing of long graphs.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include <tensorgen/tensorgen.h>

#include "../sanitizer_build.h"

using tg::Tensor;

// Not in an anonymous namespace: the function must be exported (export_dynamic) for the
// creation backtrace to name it.
namespace anomaly_test {
[[gnu::noinline]] Tensor make_sqrt_node(const Tensor& x) { return x.sqrt(); }
}  // namespace anomaly_test

TEST_CASE("anomaly: backward fails at the first infinite gradient, naming the op and where it was made") {
  Tensor x = tg::tensor({0.0, 4.0}, tg::requires_grad());
  {
    tg::autograd::DetectAnomalyGuard guard;
    CHECK(tg::autograd::is_detect_anomaly_enabled());
    Tensor y = anomaly_test::make_sqrt_node(x) * 2;
    std::string message;
    try {
      y.sum().backward();
    } catch (const tg::Error& e) {
      message = e.what();
    }
    CAPTURE(message);
    CHECK(message.find("Function 'SqrtBackward0' returned inf values in its 0th output") != std::string::npos);
    CHECK(message.find("forward operator 'sqrt'") != std::string::npos);
    CHECK(message.find("anomaly_test::make_sqrt_node") != std::string::npos);
    CHECK_FALSE(x.grad().defined());  // it failed before reaching the leaf
  }
  CHECK_FALSE(tg::autograd::is_detect_anomaly_enabled());
  // Without the guard the same program runs through, as in LibTorch.
  (anomaly_test::make_sqrt_node(x) * 2).sum().backward();
  CHECK(std::isinf(x.grad()[0].item<double>()));
}

TEST_CASE("anomaly: NaN gradients too, and set_detect_anomaly toggles it") {
  tg::autograd::set_detect_anomaly(true);
  Tensor x = tg::tensor({-1.0, 1.0}, tg::requires_grad());
  Tensor y = x.log();  // log(-1) is NaN, and so is its gradient's product below
  CHECK_THROWS_WITH_AS((y * y).sum().backward(), doctest::Contains("returned nan values"), tg::Error);
  tg::autograd::set_detect_anomaly(false);
  // Finite gradients pass.
  tg::autograd::DetectAnomalyGuard guard;
  Tensor z = tg::tensor({1.0, 2.0}, tg::requires_grad());
  (z * z).sum().backward();
  CHECK(tg::equal(z.grad(), tg::tensor({2.0, 4.0})));
}

TEST_CASE("graph deletion: a 1,000,000-node chain is freed without overflowing the stack") {
  // Under ASan at -O0 a million multiplications take minutes; a tenth still needs far more
  // stack than there is when freed recursively, since ASan's frames are the larger ones.
  const int length = test_helpers::kSanitizedBuild ? 100000 : 1000000;
  Tensor x = tg::tensor({1.0}, tg::requires_grad());
  {
    Tensor y = x;
    for (int i = 0; i < length; ++i) y = y * 1.0;
    CHECK(y.grad_fn() != nullptr);
  }  // dropping y frees the chain: recursive destructors would need ~10^6 frames
  Tensor y = x;
  for (int i = 0; i < 100000; ++i) y = y * 1.0;
  y.backward();
  CHECK(x.grad().item<double>() == 1.0);
  // Nodes shared by two graphs survive the first one's deletion.
  Tensor shared = x * 2;
  {
    Tensor a = shared * 3;
  }
  Tensor b = shared * 5;
  x.grad().zero_();
  b.backward();
  CHECK(x.grad().item<double>() == 10.0);
}
