// Issue 13, case 2: zero-size dims in reductions and losses give a result or a tg::Error, never
// a crash (cross_entropy_loss over zero classes died of SIGFPE).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "../unit/ops_test_helpers.h"

namespace {

using ops_test::contains;
using ops_test::elements;
using ops_test::thrown;

// Runs f; passes when it returns or raises tg::Error (anything else fails the test case).
void result_or_error(const char* what, const std::function<void()>& f) {
  CAPTURE(what);
  try {
    f();
  } catch (const tg::Error&) {
  }
}

TEST_CASE("zero-size: cross_entropy_loss over zero classes") {
  // Probabilities over zero classes: the mean over an empty input is NaN, as in LibTorch; the
  // sum is 0.
  tg::Tensor loss = tg::cross_entropy_loss(tg::randn({2, 0}), tg::empty({2, 0}));
  CHECK(loss.dim() == 0);
  CHECK(std::isnan(elements(loss)[0]));
  CHECK(elements(tg::cross_entropy_loss(tg::randn({2, 0}), tg::empty({2, 0}), {}, 2))[0] == 0.0f);
  // Class indices into zero classes cannot be valid.
  std::string message = thrown<tg::Error>([] {
    tg::cross_entropy_loss(tg::randn({2, 0}), tg::zeros({2}, tg::TensorOptions().dtype(tg::kLong)));
  });
  CHECK(message != "<no exception>");
  CHECK_FALSE(contains(message, "<unexpected exception>"));
}

TEST_CASE("zero-size: reductions and losses over shapes with a zero dim") {
  const std::vector<std::vector<int64_t>> shapes = {{0}, {2, 0}, {0, 3}, {2, 0, 3}};
  for (const auto& shape : shapes) {
    CAPTURE(shape.size());
    tg::Tensor x = tg::randn(shape);
    const int64_t last = x.dim() - 1;
    result_or_error("sum", [&] { tg::sum(x); });
    result_or_error("mean", [&] { tg::mean(x); });
    result_or_error("sum dim", [&] { tg::sum(x, {last}); });
    result_or_error("mean dim", [&] { tg::mean(x, {0}); });
    result_or_error("amax", [&] { tg::amax(x, {last}); });
    result_or_error("amin", [&] { tg::amin(x, {0}); });
    result_or_error("max", [&] { tg::max(x); });
    result_or_error("max dim", [&] { tg::max(x, last); });
    result_or_error("argmax", [&] { tg::argmax(x, last); });
    result_or_error("var", [&] { tg::var(x, tg::IntArrayRef{last}, true); });
    result_or_error("std", [&] { tg::std(x, tg::IntArrayRef{0}, true); });
    result_or_error("softmax", [&] { tg::softmax(x, last); });
    result_or_error("log_softmax", [&] { tg::log_softmax(x, last); });
    result_or_error("cumsum", [&] { tg::cumsum(x, last); });
    result_or_error("mse_loss", [&] { tg::mse_loss(x, x); });
    result_or_error("layer_norm", [&] { tg::layer_norm(x, {x.size(last)}); });
  }
  for (int64_t reduction = 0; reduction < 3; ++reduction) {
    CAPTURE(reduction);
    tg::Tensor logits = tg::randn({0, 4});
    tg::Tensor target = tg::zeros({0}, tg::TensorOptions().dtype(tg::kLong));
    result_or_error("nll_loss rows", [&] { tg::nll_loss(tg::log_softmax(logits, 1), target, {}, reduction); });
    result_or_error("cross_entropy rows", [&] { tg::cross_entropy_loss(logits, target, {}, reduction); });
    tg::Tensor no_classes = tg::randn({3, 0});
    tg::Tensor probabilities = tg::empty({3, 0});
    result_or_error("cross_entropy classes", [&] { tg::cross_entropy_loss(no_classes, probabilities, {}, reduction); });
    result_or_error("nll_loss classes", [&] {
      tg::nll_loss(no_classes, tg::zeros({3}, tg::TensorOptions().dtype(tg::kLong)), {}, reduction);
    });
  }
}

}  // namespace

namespace {

// Found by the operator sweep under UBSan (session 7): bmm of operands with an empty inner dim
// offset their null data pointers per batch ("applying non-zero offset to null pointer").
// The result is the batch of zero matrices, as in LibTorch.
TEST_CASE("zero-size: bmm with an empty inner dim gives zeros") {
  for (tg::ScalarType dtype : {tg::kFloat, tg::kDouble, tg::kHalf, tg::kLong}) {
    CAPTURE(dtype);
    const tg::TensorOptions options = tg::TensorOptions().dtype(dtype);
    tg::Tensor product = tg::bmm(tg::empty({2, 3, 0}, options), tg::empty({2, 0, 4}, options));
    CHECK(product.sizes().vec() == std::vector<int64_t>{2, 3, 4});
    CHECK(product.to(tg::kDouble).abs().sum().item<double>() == 0.0);
  }
}

}  // namespace

// Found by the full-size operator sweep (session 8): mean's backward read the size of dim 0
// of a 0-dim input (past the end of an empty size list; a crash in the release build).
TEST_CASE("0-dim: mean over dim 0 or -1 of a scalar has gradient 1") {
  for (int64_t dim : {0, -1}) {
    tg::Tensor x = tg::tensor(3.0, tg::TensorOptions().dtype(tg::kFloat)).requires_grad_();
    tg::Tensor y = tg::mean(x, std::vector<int64_t>{dim}, /*keepdim=*/false);
    y.backward();
    CHECK(x.grad().dim() == 0);
    CHECK(x.grad().item<float>() == 1.0f);
  }
}

// Found by the full-size operator sweep (session 8): a transposed convolution with zero input
// channels divided the weight's numel by its dim 0 (0 / 0, SIGFPE). It is now a tg::Error from
// the weight's reshape; LibTorch returns zeros here (a difference, docs/reliability.md).
TEST_CASE("zero-size: conv_transpose2d over zero input channels is a tg::Error, not a crash") {
  CHECK_THROWS_AS(tg::conv_transpose2d(tg::ones({1, 0, 3, 3}), tg::ones({0, 2, 1, 1})), tg::Error);
}
