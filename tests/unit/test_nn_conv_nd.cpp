// conv1d and conv3d against direct sums, the transposed convolutions as the adjoints of the
// plain ones (<conv(x, w), y> = <x, conv_transpose(y, w)>) and against a hand example, first and
// second derivatives by finite differences, and the Conv3d / ConvTranspose modules.
#include <cmath>
#include <sstream>

#include "autograd/gradcheck.h"
#include "ops_test_helpers.h"
#include "sanitizer_build.h"

using namespace ops_test;
using tg::Tensor;
using tg::autograd::variable_list;
namespace nn = tg::nn;
namespace F = tg::nn::functional;

namespace {

void check_close(const Values& actual, const Values& expected, double tolerance = 1e-9) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) CHECK(actual[i] == doctest::Approx(expected[i]).epsilon(tolerance));
}

double dot(const Tensor& a, const Tensor& b) { return (a * b).sum().item<double>(); }

}  // namespace

TEST_CASE("conv3d: against the direct sum, with stride, padding, dilation and groups") {
  tg::manual_seed(5);
  const Tensor x = tg::randn({2, 4, 4, 5, 3}, tg::kDouble), w = tg::randn({2, 2, 2, 3, 2}, tg::kDouble);
  const Tensor b = tg::randn({2}, tg::kDouble);
  const std::vector<int64_t> stride{2, 1, 1}, padding{1, 1, 0}, dilation{1, 1, 2};
  const Tensor y = tg::conv3d(x, w, b, stride, padding, dilation, 2);
  REQUIRE(vec(y.sizes()) == Ints{2, 2, 3, 5, 1});
  const Values xs = elements(x), ws = elements(w), bs = elements(b), ys = elements(y);
  const int64_t in[3] = {4, 5, 3}, out[3] = {3, 5, 1}, k[3] = {2, 3, 2};
  size_t position = 0;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t o = 0; o < 2; ++o)
      for (int64_t od = 0; od < out[0]; ++od)
        for (int64_t oh = 0; oh < out[1]; ++oh)
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            double sum = bs[static_cast<size_t>(o)];
            const int64_t group = o;  // one output channel per group
            for (int64_t c = 0; c < 2; ++c)
              for (int64_t kd = 0; kd < k[0]; ++kd)
                for (int64_t kh = 0; kh < k[1]; ++kh)
                  for (int64_t kw = 0; kw < k[2]; ++kw) {
                    const int64_t d = od * stride[0] + kd * dilation[0] - padding[0];
                    const int64_t h = oh * stride[1] + kh * dilation[1] - padding[1];
                    const int64_t wi = ow * stride[2] + kw * dilation[2] - padding[2];
                    if (d < 0 || d >= in[0] || h < 0 || h >= in[1] || wi < 0 || wi >= in[2]) continue;
                    const int64_t channel = group * 2 + c;
                    sum += xs[static_cast<size_t>((((n * 4 + channel) * in[0] + d) * in[1] + h) * in[2] + wi)] *
                           ws[static_cast<size_t>((((o * 2 + c) * k[0] + kd) * k[1] + kh) * k[2] + kw)];
                  }
            CHECK(ys[position++] == doctest::Approx(sum));
          }
}

TEST_CASE("conv1d: the 2-d convolution of a height of 1") {
  const Tensor x = tg::randn({2, 4, 9}, tg::kDouble), w = tg::randn({6, 2, 3}, tg::kDouble);
  const Tensor y = tg::conv1d(x, w, std::nullopt, {2}, {1}, {2}, 2);
  const Tensor expected =
      tg::conv2d(x.unsqueeze(2), w.unsqueeze(2), std::nullopt, {1, 2}, {0, 1}, {1, 2}, 2).squeeze(2);
  check_close(elements(y), elements(expected));
}

TEST_CASE("conv_transpose: a hand example, and the adjoint of the plain convolution in 1-d, 2-d and 3-d") {
  // x = [1, 2], kernel [1, 1, 1], stride 2: x0 spreads over 0..2, x1 over 2..4.
  check_close(elements(tg::conv_transpose1d(make({1, 2}, {1, 1, 2}), tg::ones({1, 1, 3}), std::nullopt, {2})),
              {1, 1, 3, 2, 2});
  struct Case {
    Ints x, w, stride, padding, output_padding, dilation;
    int64_t groups;
  };
  const Case cases[] = {
      {{2, 4, 7}, {6, 2, 3}, {2}, {1}, {0}, {1}, 2},
      {{2, 3, 6, 5}, {4, 3, 3, 2}, {2, 1}, {1, 0}, {1, 0}, {1, 2}, 1},
      {{1, 4, 5, 4, 6}, {2, 2, 2, 3, 2}, {1, 2, 2}, {0, 1, 1}, {0, 1, 1}, {1, 1, 2}, 2},
  };
  for (const Case& c : cases) {
    const Tensor x = tg::randn(c.x, tg::kDouble), w = tg::randn(c.w, tg::kDouble);
    const Tensor y = tg::convolution(x, w, std::nullopt, c.stride, c.padding, c.dilation, false, {0}, c.groups);
    const Tensor r = tg::randn(y.sizes().vec(), tg::kDouble);
    // conv_transpose's output_padding brings it back to x's shape exactly.
    const Tensor back = tg::convolution(r, w, std::nullopt, c.stride, c.padding, c.dilation, true, c.output_padding,
                                        c.groups);
    REQUIRE(vec(back.sizes()) == vec(x.sizes()));
    CHECK(dot(y, r) == doctest::Approx(dot(x, back)).epsilon(1e-10));
  }
}

TEST_CASE("conv_transpose and conv3d: first and second derivatives by finite differences" *
          doctest::skip(test_helpers::kSanitizedBuild)) {
  auto check = [](const std::function<Tensor(const variable_list&)>& f, const variable_list& inputs) {
    auto wrapped = [&](const variable_list& v) { return variable_list{f(v)}; };
    auto result = tg::autograd::gradcheck(wrapped, inputs);
    CHECK_MESSAGE(result.ok, result.message);
    result = tg::autograd::gradgradcheck(wrapped, inputs);
    CHECK_MESSAGE(result.ok, result.message);
  };
  auto requiring = [](Ints sizes) { return tg::randn(sizes, tg::kDouble).requires_grad_(); };
  check([](const variable_list& v) { return tg::conv_transpose2d(v[0], v[1], v[2], {2, 1}, {1, 0}, {1, 0}, 1, {1, 2}); },
        {requiring({2, 2, 3, 3}), requiring({2, 3, 2, 2}), requiring({3})});
  check([](const variable_list& v) { return tg::conv_transpose1d(v[0], v[1], v[2], {2}, {0}, {1}, 2, {1}); },
        {requiring({1, 4, 3}), requiring({4, 1, 3}), requiring({2})});
  check([](const variable_list& v) { return tg::conv3d(v[0], v[1], v[2], {1, 2, 1}, {1, 0, 0}, {1, 1, 1}, 1); },
        {requiring({1, 2, 3, 3, 2}), requiring({2, 2, 2, 2, 1}), requiring({2})});
  check([](const variable_list& v) { return tg::conv_transpose3d(v[0], v[1], v[2], {2, 1, 1}, {0, 0, 0}, {1, 0, 0}, 1, {1, 1, 1}); },
        {requiring({1, 2, 2, 2, 2}), requiring({2, 2, 2, 1, 2}), requiring({2})});
}

TEST_CASE("convolution: bad transposed arguments raise errors that say what was expected") {
  const Tensor x = tg::zeros({1, 4, 5, 5});
  CHECK(contains(thrown<tg::Error>([&] { tg::conv_transpose2d(x, tg::zeros({3, 2, 3, 3})); }),
                 "[conv_transpose2d] given transposed=1, weight of size [3, 2, 3, 3], expected input[1, 4, 5, 5] to "
                 "have 3 channels, but got 4 channels instead"));
  CHECK(contains(thrown<tg::Error>([&] { tg::conv_transpose2d(x, tg::zeros({4, 2, 3, 3}), {}, 1, 0, 2); }),
                 "output padding must be non-negative and smaller than either stride or dilation"));
  CHECK(contains(thrown<tg::Error>([&] { tg::conv_transpose2d(x, tg::zeros({4, 2, 3, 3}), {}, 1, 0, 1, 1, 2); }),
                 "output_padding >= stride"));
  CHECK(contains(thrown<tg::Error>([&] { tg::conv3d(tg::zeros({4, 5, 5}), tg::zeros({2, 4, 1, 1, 1})); }),
                 "[conv3d] expected 4D (unbatched) or 5D (batched) input to conv3d"));
  CHECK(contains(thrown<tg::Error>([&] { tg::conv_transpose2d(x, tg::zeros({4, 2, 3, 3}), tg::zeros({3})); }),
                 "expected bias to be 1-dimensional with 2 elements"));
}

TEST_CASE("nn::Conv3d and nn::ConvTranspose1d/2d/3d: shapes, parameters, printing") {
  nn::Conv3d conv(nn::Conv3dOptions(2, 4, 3).padding(1));
  CHECK(vec(conv->weight.sizes()) == Ints{4, 2, 3, 3, 3});
  CHECK(vec(conv(tg::randn({1, 2, 4, 4, 4})).sizes()) == Ints{1, 4, 4, 4, 4});

  nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(4, 2, 3).stride(2).padding(1).output_padding(1));
  CHECK(vec(up->weight.sizes()) == Ints{4, 2, 3, 3});
  const double bound = 1.0 / std::sqrt(2.0 * 9.0);  // fan_in = weight.size(1) * kernel
  for (double b : elements(up->bias)) CHECK(std::abs(b) <= bound);
  const Tensor x = tg::randn({2, 4, 5, 5});
  const Tensor y = up(x);
  CHECK(vec(y.sizes()) == Ints{2, 2, 10, 10});
  check_close(elements(y), elements(F::conv_transpose2d(x, up->weight, F::ConvTranspose2dFuncOptions()
                                                                             .bias(up->bias)
                                                                             .stride(2)
                                                                             .padding(1)
                                                                             .output_padding(1))),
              1e-6);
  std::ostringstream printed;
  printed << *up;
  CHECK(printed.str() ==
        "tg::nn::ConvTranspose2d(4, 2, kernel_size=[3, 3], stride=[2, 2], padding=[1, 1], output_padding=[1, 1])");
  CHECK(contains(thrown<tg::Error>([&] { up(tg::randn({2, 3, 5, 5})); }), "[nn::ConvTranspose2d] expected a [N, 4, *]"));

  nn::ConvTranspose1d up1(3, 2, 4);
  CHECK(vec(up1(tg::randn({3, 6})).sizes()) == Ints{2, 9});  // unbatched
  nn::ConvTranspose3d up3(nn::ConvTranspose3dOptions(1, 1, 2).stride(2).bias(false));
  CHECK(vec(up3(tg::randn({1, 1, 2, 3, 2})).sizes()) == Ints{1, 1, 4, 6, 4});
  CHECK(up3->parameters().size() == 1);
}
