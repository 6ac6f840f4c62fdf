// pad (constant, reflect, replicate, circular), the upsample operators and F::interpolate
// against values worked out by hand (the same PyTorch prints), their gradients by gradcheck,
// and the dropout variants' statistics (Dropout2d zeroes whole channels, AlphaDropout keeps a
// standard normal input's mean and variance).
#include <cmath>
#include <sstream>

#include "autograd/gradcheck.h"
#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;
namespace nn = tg::nn;
namespace F = tg::nn::functional;

namespace {

void check_close(const Values& actual, const Values& expected, double tolerance = 1e-6) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) CHECK(actual[i] == doctest::Approx(expected[i]).epsilon(tolerance));
}

}  // namespace

TEST_CASE("pad: the four modes along the last dim, and over two dims") {
  const Tensor x = make({1, 2, 3}, {1, 3});
  check_close(elements(tg::pad(x, {2, 1}, "constant", 9.0)), {9, 9, 1, 2, 3, 9});
  check_close(elements(tg::pad(x, {2, 2}, "reflect", std::nullopt)), {3, 2, 1, 2, 3, 2, 1});
  check_close(elements(tg::pad(x, {2, 2}, "replicate", std::nullopt)), {1, 1, 1, 2, 3, 3, 3});
  check_close(elements(tg::pad(x, {2, 2}, "circular", std::nullopt)), {2, 3, 1, 2, 3, 1, 2});
  check_close(elements(tg::pad(x, {-1, 1})), {2, 3, 0});  // a negative amount crops
  const Tensor grid = make({1, 2, 3, 4}, {1, 2, 2});
  const Tensor padded = F::pad(grid, F::PadFuncOptions({1, 0, 0, 1}).mode(tg::kReplicate));
  CHECK(vec(padded.sizes()) == Ints{1, 3, 3});
  check_close(elements(padded), {1, 1, 2, 3, 3, 4, 3, 3, 4});
  check_close(elements(F::pad(grid, F::PadFuncOptions({0, 1, 1, 0}).value(-1))), {-1, -1, -1, 1, 2, -1, 3, 4, -1});
  // An unpadded result is a new tensor, never self.
  const Tensor same = tg::pad(x, {0, 0});
  CHECK(same.data_ptr() != x.data_ptr());
}

TEST_CASE("pad: gradients sum over the copies of each element") {
  using tg::autograd::variable_list;
  for (const char* mode : {"constant", "reflect", "replicate", "circular"}) {
    const auto result = tg::autograd::gradcheck(
        [mode](const variable_list& v) {
          return variable_list{tg::pad(v[0], {2, 1, 1, 2}, mode,
                                       std::string_view(mode) == "constant" ? std::optional<double>(0.5) : std::nullopt)};
        },
        {tg::randn({2, 3, 4}, tg::kDouble).requires_grad_()});
    CHECK_MESSAGE(result.ok, (std::string(mode) + ": " + result.message));
  }
  const Tensor x = make({1, 2, 3}, {3}).requires_grad_();
  tg::pad(x, {2, 2}, "replicate", std::nullopt).sum().backward();
  check_close(elements(x.grad()), {3, 1, 3});
}

TEST_CASE("pad: bad arguments raise errors that say what was expected") {
  const Tensor x = tg::ones({2, 3});
  CHECK(contains(thrown<tg::Error>([&] { tg::pad(x, {1}); }), "[pad] expected an even number of padding amounts"));
  CHECK(contains(thrown<tg::Error>([&] { tg::pad(x, {1, 1, 1, 1, 1, 1}); }), "pads 3 dims, but the input has only 2"));
  CHECK(contains(thrown<tg::Error>([&] { tg::pad(x, {3, 0}, "reflect", std::nullopt); }),
                 "reflect padding (3, 0) must be smaller than the size of dim 1 (3)"));
  CHECK(contains(thrown<tg::Error>([&] { tg::pad(x, {1, 1}, "wrap", std::nullopt); }),
                 "expected mode constant, reflect, replicate or circular, got 'wrap'"));
  CHECK(contains(thrown<tg::Error>([&] { tg::pad(x, {1, 1}, "reflect", 2.0); }), "takes no value argument"));
  CHECK(contains(thrown<tg::Error>([&] { tg::pad(x, {-2, -2}); }), "would give a negative size"));
}

TEST_CASE("upsample: nearest and (bi)linear, with and without align_corners") {
  const Tensor grid = make({1, 2, 3, 4}, {1, 1, 2, 2});
  check_close(elements(tg::upsample_nearest2d(grid, {4, 4})), {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  check_close(elements(tg::upsample_bilinear2d(grid, {4, 4}, false)),
              {1.0, 1.25, 1.75, 2.0, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3.0, 3.25, 3.75, 4.0});
  check_close(elements(tg::upsample_bilinear2d(grid, {3, 3}, true)), {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  check_close(elements(tg::upsample_nearest1d(make({0, 1, 2, 3, 4}, {1, 1, 5}), {3})), {0, 1, 3});
  check_close(elements(tg::upsample_linear1d(make({0, 10}, {1, 1, 2}), {4}, false)), {0, 2.5, 7.5, 10});
  const Tensor cube = tg::arange(8, tg::kDouble).view({1, 1, 2, 2, 2});
  // Trilinear with align_corners at the centre is the mean of the 8 corners.
  CHECK(tg::upsample_trilinear3d(cube, {3, 3, 3}, true).view({-1})[13].item<double>() == doctest::Approx(3.5));
  CHECK(vec(tg::upsample_nearest3d(cube, {4, 2, 6}).sizes()) == Ints{1, 1, 4, 2, 6});
  using tg::autograd::variable_list;
  const auto result = tg::autograd::gradcheck(
      [](const variable_list& v) { return variable_list{tg::upsample_bilinear2d(v[0], {5, 3}, false)}; },
      {tg::randn({1, 2, 3, 4}, tg::kDouble).requires_grad_()});
  CHECK_MESSAGE(result.ok, result.message);
}

TEST_CASE("F::interpolate: size or scale_factor, the mode picks the operator") {
  const Tensor grid = make({1, 2, 3, 4}, {1, 1, 2, 2});
  check_close(elements(F::interpolate(grid, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2}))),
              elements(tg::upsample_nearest2d(grid, {4, 4})));
  check_close(elements(F::interpolate(grid, F::InterpolateFuncOptions()
                                                .size(std::vector<int64_t>{3, 3})
                                                .mode(tg::kBilinear)
                                                .align_corners(true))),
              {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  CHECK(contains(thrown<tg::Error>([&] { F::interpolate(grid); }), "expected exactly one of size and scale_factor"));
  CHECK(contains(thrown<tg::Error>([&] {
          F::interpolate(grid, F::InterpolateFuncOptions().size(std::vector<int64_t>{3}).mode(tg::kTrilinear));
        }),
        "mode trilinear expects a 5-D input"));
  CHECK(contains(thrown<tg::Error>([&] {
          F::interpolate(grid, F::InterpolateFuncOptions().size(std::vector<int64_t>{3}).align_corners(true));
        }),
        "align_corners option can only be set with the interpolating modes"));
  CHECK(contains(thrown<tg::Error>([&] { tg::upsample_nearest2d(grid, {0, 3}); }), "expected output sizes > 0"));
  CHECK(contains(thrown<tg::Error>([&] { tg::upsample_nearest2d(grid.view({1, 4}), {2, 2}); }),
                 "[upsample_nearest2d] expected an input of shape [N, C, 2 spatial dims]"));
}

TEST_CASE("Dropout2d zeroes whole channels and scales the rest; eval is the identity") {
  tg::manual_seed(3);
  nn::Dropout2d dropout(0.5);
  const Tensor x = tg::ones({8, 16, 3, 3});
  const Tensor y = dropout(x);
  const Values ys = elements(y);
  int64_t kept = 0;
  for (size_t channel = 0; channel < 8 * 16; ++channel) {
    const double first = ys[channel * 9];
    CHECK((first == 0.0 || first == 2.0));
    for (size_t i = 1; i < 9; ++i) CHECK(ys[channel * 9 + i] == first);
    kept += first != 0.0;
  }
  CHECK(kept > 30);  // about 64 of 128 channels
  CHECK(kept < 98);
  // An unbatched [C, H, W] input drops channels too.
  CHECK(vec(dropout(tg::ones({4, 2, 2})).sizes()) == Ints{4, 2, 2});
  dropout->eval();
  check_close(elements(dropout(x)), elements(x));
  CHECK(contains(thrown<tg::Error>([&] { dropout->train(); dropout(tg::ones({2, 2})); }),
                 "[nn::functional::dropout2d] expected a 3-D (unbatched) or 4-D (batched) input"));
  std::ostringstream printed;
  printed << *dropout;
  CHECK(printed.str() == "tg::nn::Dropout2d(p=0.5, inplace=false)");
}

TEST_CASE("AlphaDropout keeps a standard normal input's mean and variance") {
  tg::manual_seed(4);
  nn::AlphaDropout dropout(0.3);
  const Tensor x = tg::randn({200000}, tg::kDouble);
  const Tensor y = dropout(x);
  CHECK(std::abs(y.mean().item<double>()) < 0.02);
  CHECK(y.var().item<double>() == doctest::Approx(1.0).epsilon(0.03));
  // A dropped element takes one value: a * (-alpha) + b.
  const double a = 1.0 / std::sqrt((1.7580993408473766 * 1.7580993408473766 * 0.3 + 1.0) * 0.7);
  const double dropped = -1.7580993408473766 * a + 1.7580993408473766 * a * 0.3;
  const int64_t count = (y - dropped).abs().lt(1e-12).sum().item<int64_t>();
  CHECK(count > 55000);  // about 60000 of 200000
  CHECK(count < 65000);
  dropout->eval();
  check_close(elements(dropout(x.narrow(0, 0, 10))), elements(x.narrow(0, 0, 10)));
}
