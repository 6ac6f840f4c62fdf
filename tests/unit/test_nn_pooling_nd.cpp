// 3-d and adaptive pooling: max_pool3d / avg_pool3d against a direct loop over each window,
// 3-d pooling over a depth of 1 against the 2-d operators, adaptive pooling against its windows
// computed by hand (and against the sliding pools when the sizes divide), gradients by finite
// differences, the errors for bad arguments, and the MaxPool3d / AvgPool3d / AdaptiveMaxPool /
// AdaptiveAvgPool3d modules.
#include <cmath>
#include <functional>
#include <limits>
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

void check_close(const Values& actual, const Values& expected, double tolerance = 1e-12) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) CHECK(actual[i] == doctest::Approx(expected[i]).epsilon(tolerance));
}

// The parameters of one 3-d pooling along (depth, height, width).
struct Pool3d {
  Ints kernel, stride, padding, dilation{1, 1, 1};
  bool ceil_mode = false;
};

int64_t out_size(int64_t n, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = n + 2 * p - d * (k - 1) - 1;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= n + p) --out;
  return out;
}

// max_pool3d of a [planes, D, H, W] tensor by a direct loop: (values, flat indices).
std::pair<Values, Values> direct_max_pool3d(const Tensor& x, const Pool3d& c) {
  const Values xs = elements(x);
  const int64_t n[3] = {x.size(-3), x.size(-2), x.size(-1)};
  int64_t out[3];
  for (int d = 0; d < 3; ++d) {
    out[d] = out_size(n[d], c.kernel[d], c.stride[d], c.padding[d], c.dilation[d], c.ceil_mode);
  }
  const int64_t planes = x.numel() / (n[0] * n[1] * n[2]);
  Values maxima, indices;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oz = 0; oz < out[0]; ++oz)
      for (int64_t oy = 0; oy < out[1]; ++oy)
        for (int64_t ox = 0; ox < out[2]; ++ox) {
          double best = -std::numeric_limits<double>::infinity();
          int64_t at = -1;
          for (int64_t i = 0; i < c.kernel[0]; ++i)
            for (int64_t j = 0; j < c.kernel[1]; ++j)
              for (int64_t k = 0; k < c.kernel[2]; ++k) {
                const int64_t z = oz * c.stride[0] - c.padding[0] + i * c.dilation[0];
                const int64_t y = oy * c.stride[1] - c.padding[1] + j * c.dilation[1];
                const int64_t w = ox * c.stride[2] - c.padding[2] + k * c.dilation[2];
                if (z < 0 || z >= n[0] || y < 0 || y >= n[1] || w < 0 || w >= n[2]) continue;
                const int64_t offset = (z * n[1] + y) * n[2] + w;
                const double v = xs[static_cast<size_t>(p * n[0] * n[1] * n[2] + offset)];
                if (at < 0 || v > best) best = v, at = offset;
              }
          maxima.push_back(best);
          indices.push_back(static_cast<double>(at));
        }
  return {maxima, indices};
}

// avg_pool3d by a direct loop; divisor_override 0 means none.
Values direct_avg_pool3d(const Tensor& x, const Pool3d& c, bool count_include_pad, int64_t divisor_override) {
  const Values xs = elements(x);
  const int64_t n[3] = {x.size(-3), x.size(-2), x.size(-1)};
  int64_t out[3];
  for (int d = 0; d < 3; ++d) out[d] = out_size(n[d], c.kernel[d], c.stride[d], c.padding[d], 1, c.ceil_mode);
  const int64_t planes = x.numel() / (n[0] * n[1] * n[2]);
  Values result;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oz = 0; oz < out[0]; ++oz)
      for (int64_t oy = 0; oy < out[1]; ++oy)
        for (int64_t ox = 0; ox < out[2]; ++ox) {
          const int64_t o[3] = {oz, oy, ox};
          int64_t begin[3], end[3], padded_count = 1;
          for (int d = 0; d < 3; ++d) {
            begin[d] = o[d] * c.stride[d] - c.padding[d];
            end[d] = std::min(begin[d] + c.kernel[d], n[d] + c.padding[d]);
            padded_count *= end[d] - begin[d];
          }
          double sum = 0;
          int64_t count = 0;
          for (int64_t z = std::max<int64_t>(begin[0], 0); z < std::min(end[0], n[0]); ++z)
            for (int64_t y = std::max<int64_t>(begin[1], 0); y < std::min(end[1], n[1]); ++y)
              for (int64_t w = std::max<int64_t>(begin[2], 0); w < std::min(end[2], n[2]); ++w, ++count)
                sum += xs[static_cast<size_t>(((p * n[0] + z) * n[1] + y) * n[2] + w)];
          const int64_t divisor = divisor_override != 0 ? divisor_override : count_include_pad ? padded_count : count;
          result.push_back(sum / static_cast<double>(divisor));
        }
  return result;
}

// Adaptive windows along one dim, written out: cell i of `out` over `n` covers
// [floor(i n / out), ceil((i + 1) n / out)).
std::pair<int64_t, int64_t> adaptive_window(int64_t i, int64_t out, int64_t n) {
  return {(i * n) / out, ((i + 1) * n + out - 1) / out};
}

// Adaptive max (values, indices) and mean of a [planes, D, H, W] tensor by a direct loop.
struct AdaptiveResult {
  Values maxima, indices, means;
};

AdaptiveResult direct_adaptive_pool3d(const Tensor& x, const Ints& out) {
  const Values xs = elements(x);
  const int64_t n[3] = {x.size(-3), x.size(-2), x.size(-1)};
  const int64_t planes = x.numel() / (n[0] * n[1] * n[2]);
  AdaptiveResult r;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oz = 0; oz < out[0]; ++oz)
      for (int64_t oy = 0; oy < out[1]; ++oy)
        for (int64_t ox = 0; ox < out[2]; ++ox) {
          const auto [z0, z1] = adaptive_window(oz, out[0], n[0]);
          const auto [y0, y1] = adaptive_window(oy, out[1], n[1]);
          const auto [x0, x1] = adaptive_window(ox, out[2], n[2]);
          double best = -std::numeric_limits<double>::infinity(), sum = 0;
          int64_t at = -1;
          for (int64_t z = z0; z < z1; ++z)
            for (int64_t y = y0; y < y1; ++y)
              for (int64_t w = x0; w < x1; ++w) {
                const int64_t offset = (z * n[1] + y) * n[2] + w;
                const double v = xs[static_cast<size_t>(p * n[0] * n[1] * n[2] + offset)];
                sum += v;
                if (at < 0 || v > best) best = v, at = offset;
              }
          r.maxima.push_back(best);
          r.indices.push_back(static_cast<double>(at));
          r.means.push_back(sum / static_cast<double>((z1 - z0) * (y1 - y0) * (x1 - x0)));
        }
  return r;
}

void check_gradients(const std::function<Tensor(const Tensor&)>& f, const Ints& sizes) {
  auto wrapped = [&](const variable_list& v) { return variable_list{f(v[0])}; };
  const variable_list inputs{tg::randn(sizes, tg::kDouble).requires_grad_()};
  auto result = tg::autograd::gradcheck(wrapped, inputs);
  CHECK_MESSAGE(result.ok, result.message);
  result = tg::autograd::gradgradcheck(wrapped, inputs);
  CHECK_MESSAGE(result.ok, result.message);
}

}  // namespace

TEST_CASE("max_pool3d and avg_pool3d: against a direct loop over each window") {
  tg::manual_seed(11);
  const Tensor x = tg::randn({2, 3, 5, 6, 4}, tg::kDouble);
  const Pool3d cases[] = {
      {{2, 2, 2}, {2, 2, 2}, {0, 0, 0}},
      {{3, 2, 2}, {2, 1, 2}, {1, 1, 0}, {1, 2, 1}},
      {{2, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, /*ceil_mode=*/true},
  };
  for (const Pool3d& c : cases) {
    auto [maxima, indices] = tg::max_pool3d_with_indices(x, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode);
    const auto [expected_maxima, expected_indices] = direct_max_pool3d(x, c);
    check_close(elements(maxima), expected_maxima);
    CHECK(elements(indices) == expected_indices);
    CHECK(indices.scalar_type() == tg::kLong);
    check_close(elements(tg::max_pool3d(x, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode)),
                expected_maxima);
    if (c.dilation != Ints{1, 1, 1}) continue;  // avg_pool3d has no dilation
    for (bool count_include_pad : {true, false}) {
      check_close(elements(tg::avg_pool3d(x, c.kernel, c.stride, c.padding, c.ceil_mode, count_include_pad)),
                  direct_avg_pool3d(x, c, count_include_pad, 0));
    }
    check_close(elements(tg::avg_pool3d(x, c.kernel, c.stride, c.padding, c.ceil_mode, true, 7)),
                direct_avg_pool3d(x, c, true, 7));
  }
  // Unbatched [C, D, H, W] input: the batched result's first sample.
  const Tensor sample = x.select(0, 1);
  check_close(elements(tg::max_pool3d(sample, {2, 2, 2})), elements(tg::max_pool3d(x, {2, 2, 2}).select(0, 1)));
  check_close(elements(tg::avg_pool3d(sample, {3, 3, 3}, {1, 1, 1}, {1, 1, 1})),
              elements(tg::avg_pool3d(x, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}).select(0, 1)));
}

TEST_CASE("max_pool2d (its 2-d path): against a direct loop, with ties, padding, dilation and ceil_mode") {
  // Values rounded to halves: many equal maxima, where the first (in index order) must win.
  tg::manual_seed(13);
  const Tensor x = (tg::randn({2, 3, 9, 7}, tg::kDouble) * 4.0).to(tg::kLong).to(tg::kDouble) / 2.0;
  const Pool3d cases[] = {
      {{1, 2, 2}, {1, 2, 2}, {0, 0, 0}},
      {{1, 3, 2}, {1, 2, 1}, {0, 1, 1}, {1, 1, 1}, /*ceil_mode=*/true},
      {{1, 3, 3}, {1, 2, 3}, {0, 1, 1}, {1, 2, 2}},
      {{1, 2, 3}, {1, 3, 2}, {0, 1, 1}, {1, 1, 2}, /*ceil_mode=*/true},
  };
  for (const Pool3d& c : cases) {
    CAPTURE(c.kernel);
    CAPTURE(c.stride);
    const Ints kernel{c.kernel[1], c.kernel[2]}, stride{c.stride[1], c.stride[2]};
    const Ints padding{c.padding[1], c.padding[2]}, dilation{c.dilation[1], c.dilation[2]};
    const auto [expected_maxima, expected_indices] = direct_max_pool3d(x.unsqueeze(2), c);
    for (tg::ScalarType dtype : {tg::kDouble, tg::kFloat}) {
      auto [maxima, indices] = tg::max_pool2d_with_indices(x.to(dtype), kernel, stride, padding, dilation, c.ceil_mode);
      CHECK(elements(maxima) == expected_maxima);
      CHECK(elements(indices) == expected_indices);
    }
  }
  // NaN wins over every number and the first NaN stays.
  const double nan = std::nan("");
  const Tensor with_nan = make({1, nan, nan, 5, 2, 3, 4, nan}, {1, 2, 4});
  auto [maxima, indices] = tg::max_pool2d_with_indices(with_nan, {2, 2}, {2, 2});
  const Values got = elements(maxima);
  CHECK((std::isnan(got[0]) && std::isnan(got[1])));
  CHECK(elements(indices) == Values{1, 2});
}

TEST_CASE("3-d pooling over a depth of 1 is the 2-d pooling, gradients included") {
  tg::manual_seed(12);
  const Tensor x2 = tg::randn({2, 3, 7, 6}, tg::kDouble).requires_grad_();
  const Tensor x3 = x2.detach().unsqueeze(2).requires_grad_();
  auto [max3, at3] = tg::max_pool3d_with_indices(x3, {1, 3, 2}, {1, 2, 1}, {0, 1, 1}, {1, 1, 1}, true);
  auto [max2, at2] = tg::max_pool2d_with_indices(x2, {3, 2}, {2, 1}, {1, 1}, {1, 1}, true);
  check_close(elements(max3.squeeze(2)), elements(max2));
  CHECK(elements(at3.squeeze(2)) == elements(at2));
  const Tensor avg3 = tg::avg_pool3d(x3, {1, 3, 2}, {1, 2, 1}, {0, 1, 1}, true, false);
  const Tensor avg2 = tg::avg_pool2d(x2, {3, 2}, {2, 1}, {1, 1}, true, false);
  check_close(elements(avg3.squeeze(2)), elements(avg2));
  const Tensor weight = tg::randn(max2.sizes().vec(), tg::kDouble);
  ((max3.squeeze(2) + avg3.squeeze(2)) * weight).sum().backward();
  ((max2 + avg2) * weight).sum().backward();
  check_close(elements(x3.grad().squeeze(2)), elements(x2.grad()));
  // Adaptive pools likewise.
  check_close(elements(tg::adaptive_avg_pool3d(x3.detach(), {1, 4, 4}).squeeze(2)),
              elements(tg::adaptive_avg_pool2d(x2.detach(), {4, 4})));
  auto [amax3, aat3] = tg::adaptive_max_pool3d(x3.detach(), {1, 5, 4});
  auto [amax2, aat2] = tg::adaptive_max_pool2d(x2.detach(), {5, 4});
  check_close(elements(amax3.squeeze(2)), elements(amax2));
  CHECK(elements(aat3.squeeze(2)) == elements(aat2));
}

TEST_CASE("adaptive pooling: uneven windows by hand, indices, and the sliding pools when sizes divide") {
  tg::manual_seed(13);
  const Tensor x = tg::randn({2, 3, 5, 7, 6}, tg::kDouble);
  for (const Ints& out : {Ints{3, 4, 4}, Ints{2, 7, 1}, Ints{5, 3, 6}, Ints{1, 1, 1}}) {
    const AdaptiveResult expected = direct_adaptive_pool3d(x, out);
    auto [maxima, indices] = tg::adaptive_max_pool3d(x, out);
    check_close(elements(maxima), expected.maxima);
    CHECK(elements(indices) == expected.indices);
    check_close(elements(tg::adaptive_avg_pool3d(x, out)), expected.means);
  }
  // 2-d: a [5, 5] plane to 3 x 3 covers rows and columns [0, 2), [1, 4), [3, 5).
  const Tensor plane = tg::arange(25, tg::kDouble).view({1, 1, 5, 5});
  auto [maxima, indices] = tg::adaptive_max_pool2d(plane, {3, 3});
  CHECK(elements(maxima) == Values{6, 8, 9, 16, 18, 19, 21, 23, 24});
  CHECK(elements(indices) == Values{6, 8, 9, 16, 18, 19, 21, 23, 24});
  CHECK(elements(tg::adaptive_avg_pool2d(plane, {3, 3}))[0] == doctest::Approx((0 + 1 + 5 + 6) / 4.0));
  // 1-d: [0, 3), [2, 5), [4, 7) of seven.
  const Tensor row = make({3, 1, 4, 1, 5, 9, 2}, {1, 1, 7}, tg::kDouble);
  auto [row_max, row_at] = tg::adaptive_max_pool1d(row, {3});
  CHECK(elements(row_max) == Values{4, 5, 9});
  CHECK(elements(row_at) == Values{2, 4, 5});
  check_close(elements(tg::adaptive_avg_pool1d(row, {3})), {8 / 3.0, 10 / 3.0, 16 / 3.0});
  // Sizes that divide: the windows are the sliding ones with kernel = stride = n / out.
  const Tensor even = tg::randn({2, 2, 4, 6, 8}, tg::kDouble);
  check_close(elements(tg::adaptive_avg_pool3d(even, {2, 3, 2})), elements(tg::avg_pool3d(even, {2, 2, 4})));
  check_close(elements(std::get<0>(tg::adaptive_max_pool3d(even, {2, 3, 2}))),
              elements(tg::max_pool3d(even, {2, 2, 4})));
}

// Finite differences are the normal build's job: under ASan + UBSan at -O0 this case alone ran
// past the 300 s limit of unit_nn_cnn (docs/reliability.md).
TEST_CASE("3-d and adaptive pooling: first and second derivatives by finite differences" *
          doctest::skip(test_helpers::kSanitizedBuild)) {
  tg::manual_seed(14);
  check_gradients([](const Tensor& x) { return tg::max_pool3d(x, {2, 2, 2}, {1, 2, 1}, {1, 0, 1}); }, {1, 2, 3, 4, 4});
  check_gradients([](const Tensor& x) { return tg::avg_pool3d(x, {2, 3, 2}, {1, 2, 2}, {1, 1, 0}, true, false); },
                  {2, 3, 4, 3});
  check_gradients([](const Tensor& x) { return tg::adaptive_avg_pool3d(x, {2, 3, 2}); }, {1, 2, 3, 5, 4});
  check_gradients([](const Tensor& x) { return std::get<0>(tg::adaptive_max_pool3d(x, {2, 2, 3})); }, {2, 3, 3, 5});
  check_gradients([](const Tensor& x) { return std::get<0>(tg::adaptive_max_pool2d(x, {3, 2})); }, {2, 2, 5, 5});
  check_gradients([](const Tensor& x) { return std::get<0>(tg::adaptive_max_pool1d(x, {3})); }, {2, 2, 7});
  // The backward of a max pool routes each output's gradient to its argmax.
  const Tensor x = tg::randn({1, 1, 4, 4, 4}, tg::kDouble).requires_grad_();
  auto [maxima, indices] = tg::max_pool3d_with_indices(x, {2, 2, 2});
  maxima.sum().backward();
  Values expected(64, 0.0);
  for (double at : elements(indices)) expected[static_cast<size_t>(at)] += 1;
  CHECK(elements(x.grad()) == expected);
}

TEST_CASE("3-d and adaptive pooling reject bad arguments with tg::Error") {
  const Tensor x = tg::zeros({1, 2, 3, 4, 4});
  CHECK(contains(thrown<tg::ValueError>([&] { tg::max_pool3d(tg::zeros({3, 4, 4}), {2, 2, 2}); }),
                 "[max_pool3d] non-empty 4D or 5D (batch mode) tensor expected for input, got shape [3, 4, 4]"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::avg_pool3d(tg::zeros({1, 2, 0, 4, 4}), {1, 1, 1}); }),
                 "non-empty 4D or 5D"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::max_pool3d(x, {4, 2, 2}); }),
                 "[max_pool3d] given input size [1, 2, 3, 4, 4], the calculated output size is (0x2x2), which is "
                 "too small"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::avg_pool3d(x, {2, 2}); }),
                 "[avg_pool3d] kernel_size must either be a single int, or a tuple of three ints"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::max_pool3d(x, {2, 0, 2}); }),
                 "kernel size should be greater than zero"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::avg_pool3d(x, {2, 2, 2}, {1, -1, 1}); }),
                 "stride should be greater than zero"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::max_pool3d(x, {2, 2, 2}, {}, {0, 2, 0}); }),
                 "pad should be at most half of effective kernel size"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::avg_pool3d(x, {2, 2, 2}, {}, {0, 0, 0}, false, true, 0); }),
                 "[avg_pool3d] divisor must be not zero"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::adaptive_max_pool3d(x, {2, 0, 2}); }),
                 "[adaptive_max_pool3d] output_size must be positive, got [2, 0, 2]"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::adaptive_avg_pool3d(x, {2, 2}); }),
                 "[adaptive_avg_pool3d] output_size must be 3 ints, got [2, 2]"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::adaptive_max_pool2d(tg::zeros({4}), {2, 2}); }),
                 "[adaptive_max_pool2d] non-empty 3D or 4D (batch mode) tensor expected for input"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::adaptive_max_pool1d(tg::zeros({2, 3, 4, 5}), {2}); }),
                 "[adaptive_max_pool1d] expected a 2-d [C, L] or 3-d [N, C, L] input"));
  CHECK(contains(thrown<tg::ValueError>([&] { tg::adaptive_avg_pool1d(tg::zeros({2, 5}), {-1}); }),
                 "output_size must be positive"));
  // A backward given indices outside the input plane: the CPU kernel's IndexError.
  const Tensor grad = tg::ones({1, 2, 1, 2, 2}), bad = tg::full({1, 2, 1, 2, 2}, 96).to(tg::kLong);
  CHECK(contains(thrown<tg::IndexError>([&] {
                   tg::max_pool3d_with_indices_backward(grad, x, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, false,
                                                        bad);
                 }),
                 "[max_pool3d_backward] index 96 is out of range for an input plane of 48 elements"));
  CHECK(contains(thrown<tg::ValueError>([&] {
                   tg::adaptive_max_pool3d_backward(tg::ones({1, 2, 1, 2}), x, tg::zeros({1, 2, 1, 2}, tg::kLong));
                 }),
                 "[adaptive_max_pool3d_backward] expected grad_output of 5 dims"));
}

TEST_CASE("pooling modules: MaxPool3d, AvgPool3d, AdaptiveMaxPool1d/2d/3d, AdaptiveAvgPool3d") {
  tg::manual_seed(15);
  const Tensor x = tg::randn({2, 3, 4, 6, 5});
  nn::MaxPool3d max_pool(nn::MaxPool3dOptions({2, 3, 2}).stride(1).padding({1, 1, 0}));
  check_close(elements(max_pool(x)),
              elements(F::max_pool3d(x, F::MaxPool3dFuncOptions({2, 3, 2}).stride(1).padding({1, 1, 0}))));
  auto [values, indices] = max_pool->forward_with_indices(x);
  auto [expected_values, expected_indices] = tg::max_pool3d_with_indices(x, {2, 3, 2}, {1, 1, 1}, {1, 1, 0});
  check_close(elements(values), elements(expected_values));
  CHECK(elements(indices) == elements(expected_indices));
  std::ostringstream printed;
  printed << *max_pool;
  CHECK(printed.str() ==
        "tg::nn::MaxPool3d(kernel_size=[2, 3, 2], stride=[1, 1, 1], padding=[1, 1, 0], dilation=[1, 1, 1], "
        "ceil_mode=false)");

  nn::AvgPool3d avg_pool(nn::AvgPool3dOptions(2).count_include_pad(false).divisor_override(3));
  check_close(elements(avg_pool(x)), elements(tg::avg_pool3d(x, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, false, false, 3)));

  nn::AdaptiveMaxPool3d adaptive_max(nn::AdaptiveMaxPool3dOptions({3, 2, 4}));
  auto [amax, aat] = adaptive_max->forward_with_indices(x);
  check_close(elements(adaptive_max(x)), elements(amax));
  CHECK(elements(aat) == elements(std::get<1>(tg::adaptive_max_pool3d(x, {3, 2, 4}))));
  nn::AdaptiveMaxPool2d adaptive_max2(3);
  CHECK(vec(adaptive_max2(x.select(2, 0)).sizes()) == Ints{2, 3, 3, 3});
  nn::AdaptiveMaxPool1d adaptive_max1(2);
  const Tensor row = make({1, 7, 2, 8}, {1, 4});
  CHECK(elements(adaptive_max1(row)) == Values{7, 8});
  CHECK(elements(std::get<1>(adaptive_max1->forward_with_indices(row))) == Values{1, 3});
  std::ostringstream printed_adaptive;
  printed_adaptive << *adaptive_max2;
  CHECK(printed_adaptive.str() == "tg::nn::AdaptiveMaxPool2d(output_size=[3, 3])");

  nn::AdaptiveAvgPool3d adaptive_avg(1);
  check_close(elements(adaptive_avg(x)), elements(x.mean({2, 3, 4}, true)), 1e-5);
  nn::MaxPool1d max_pool1(nn::MaxPool1dOptions(2));
  CHECK(elements(std::get<1>(max_pool1->forward_with_indices(row))) == Values{1, 3});
  CHECK(contains(thrown<tg::Error>([&] { adaptive_max(tg::randn({2, 3})); }), "[adaptive_max_pool3d]"));
}
