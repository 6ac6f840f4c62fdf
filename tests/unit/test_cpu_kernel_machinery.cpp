// Tests of the CPU kernel machinery that every kernel shares (kernels/cpu): StridedLoop's
// ranges (what threads split), the parallel strided elementwise path, the scalar-operand
// rows, and the vectorised softmax rows, sum leaves and activations against double
// references (the vector math itself: test_cpu_vec_math.cpp).
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cpu/strided_loop.h"
#include "cpu/vec.h"
#include "ops_test_helpers.h"
#include "thread_count.h"

using namespace ops_test;
using tg::Tensor;

namespace {

// Restores the thread count a test changed.

// Whether a and b hold the same values (read as doubles) elementwise, within
// atol + rtol * |b|.
bool close(const Tensor& a, const Tensor& b, double rtol = 0, double atol = 0) {
  const Values x = values(a), y = values(b);
  if (x.size() != y.size() || shape(a) != shape(b)) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!(std::fabs(x[i] - y[i]) <= atol + rtol * std::fabs(y[i]))) return false;
  }
  return true;
}

// Elements 0, 1, 2, ... as a float tensor of `sizes`.
Tensor iota(const Ints& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return tg::arange(n, tg::kFloat).reshape(sizes);
}

}  // namespace

TEST_CASE("StridedLoop::run_range over any split visits exactly the rows run visits") {
  // A permuted, partly broadcast 3-D iteration that does not coalesce into one row.
  const Ints shape{3, 4, 5};
  const std::vector<int64_t> out_strides{4, 60, 12}, in_strides{0, 4, 20};
  // Real buffers (the largest offsets are 236 and 92 bytes): pointer arithmetic on null is
  // undefined, and the sanitized leg's UBSan stops on it. Visits are recorded as offsets.
  std::array<char, 256> out_buffer{}, in_buffer{};
  std::array<char*, 2> data{out_buffer.data(), in_buffer.data()};
  const tg::cpu::StridedLoop<2> loop(shape, data, {tg::IntArrayRef(out_strides), tg::IntArrayRef(in_strides)});
  REQUIRE(loop.numel() == 60);
  // Each element as (operand 0 offset, operand 1 offset), in iteration order.
  using Visit = std::pair<std::intptr_t, std::intptr_t>;
  const auto collect = [&](int64_t begin, int64_t end, std::vector<Visit>& visits) {
    loop.run_range(begin, end, [&](const auto& ptrs, const auto& strides, int64_t n) {
      for (int64_t j = 0; j < n; ++j) {
        visits.emplace_back((ptrs[0] + j * strides[0]) - out_buffer.data(),
                            (ptrs[1] + j * strides[1]) - in_buffer.data());
      }
    });
  };
  std::vector<Visit> whole;
  collect(0, loop.numel(), whole);
  REQUIRE(whole.size() == 60);
  for (int64_t cut1 : {0, 1, 7, 20, 33}) {
    for (int64_t cut2 : {33, 41, 59, 60}) {
      std::vector<Visit> parts;
      collect(0, cut1, parts);
      collect(cut1, cut2, parts);
      collect(cut2, 60, parts);
      CHECK((parts == whole));
    }
  }
  CHECK(loop.distinct_elements(0));
  CHECK_FALSE(loop.distinct_elements(1));  // operand 1 is broadcast along dim 0
}

TEST_CASE("strided elementwise ops split across two threads give the one-thread result") {
  // 300 x 400 = 120,000 elements, above the parallel grain, through the strided path: a
  // transposed operand, a broadcast row, and a mixed-dtype operand that is converted.
  const Tensor a = iota({400, 300}).t();
  const Tensor b = iota({400}) * 0.5;
  const Tensor c = tg::arange(300 * 400, tg::kInt).reshape({300, 400});
  Tensor expected_sum, expected_mixed;
  {
    ThreadCount one(1);
    expected_sum = tg::add(a, b);
    expected_mixed = tg::mul(a, c);
  }
  ThreadCount two(2);
  CHECK(close(tg::add(a, b), expected_sum));
  CHECK(close(tg::mul(a, c), expected_mixed));
  // Spot values computed by hand: a[i][j] = j * 300 + i, b[j] = j / 2, c[i][j] = i * 400 + j.
  const Values sum = values(expected_sum);
  for (int64_t i : {0, 123, 299}) {
    for (int64_t j : {0, 201, 399}) {
      CHECK(sum[static_cast<size_t>(i * 400 + j)] == doctest::Approx(j * 300 + i + j * 0.5));
    }
  }
  // An out= into a transposed tensor, written by both threads.
  Tensor out = tg::empty({400, 300}).t();
  tg::add_out(out, a, b);
  CHECK(close(out, expected_sum));
}

TEST_CASE("binary ops with a scalar operand on either side, whole tensors and broadcast columns") {
  const Tensor x = iota({6, 37});
  const Tensor s = tg::full({}, 2.5);
  const Values xs = values(x);
  const Values left = values(tg::sub(s, x)), right = values(tg::sub(x, s));
  for (size_t i = 0; i < xs.size(); ++i) {
    CHECK(left[i] == 2.5 - xs[i]);
    CHECK(right[i] == xs[i] - 2.5);
  }
  // [6, 37] - [6, 1]: each row's second operand is a stride-0 scalar.
  const Tensor column = iota({6, 1}) * 10.0;
  const Values rows = values(tg::sub(x, column)), rows_left = values(tg::sub(column, x));
  for (int64_t i = 0; i < 6; ++i) {
    for (int64_t j = 0; j < 37; ++j) {
      const size_t at = static_cast<size_t>(i * 37 + j);
      CHECK(rows[at] == xs[at] - 10.0 * i);
      CHECK(rows_left[at] == 10.0 * i - xs[at]);
    }
  }
}

TEST_CASE("float softmax rows (vectorised) match a double reference for every tail length") {
  for (int64_t n : {1, 3, 4, 5, 8, 13, 16, 17, 31, 64, 1001}) {
    const Tensor x = tg::randn({3, n}) * 4.0;
    const Tensor reference = tg::softmax(x.to(tg::kDouble), 1);
    const Tensor log_reference = tg::log_softmax(x.to(tg::kDouble), 1);
    CHECK(close(tg::softmax(x, 1), reference, 1e-6, 1e-7));
    CHECK(close(tg::log_softmax(x, 1), log_reference, 1e-6, 1e-5));
    // Backward through both, against the double computation.
    const Tensor g = tg::randn({3, n});
    const Tensor y = tg::softmax(x, 1), log_y = tg::log_softmax(x, 1);
    CHECK(close(tg::_softmax_backward_data(g, y, 1, tg::kFloat),
                       tg::_softmax_backward_data(g.to(tg::kDouble), y.to(tg::kDouble), 1, tg::kDouble), 1e-5, 1e-6));
    CHECK(close(tg::_log_softmax_backward_data(g, log_y, 1, tg::kFloat),
                       tg::_log_softmax_backward_data(g.to(tg::kDouble), log_y.to(tg::kDouble), 1, tg::kDouble),
                       1e-5, 1e-5));
  }
}

TEST_CASE("float softmax gives exactly 0 to -inf entries (attention masks) and NaN to NaN rows") {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = make({-inf, 0, 1, -inf, 2, -inf, -inf, 3, std::nan(""), 1, 2, 3, 4, 5, 6, 7}, {2, 8});
  const Values y = values(tg::softmax(x, 1));
  const double total = 1 + std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  CHECK(y[0] == 0.0);
  CHECK(y[1] == doctest::Approx(1 / total));
  CHECK(y[3] == 0.0);
  CHECK(y[7] == doctest::Approx(std::exp(3.0) / total));
  for (size_t i = 8; i < 16; ++i) CHECK(std::isnan(y[i]));
  CHECK(values(tg::log_softmax(x, 1))[0] == -inf);
}

TEST_CASE("float and double sums (AVX2 or baseline leaves) match a long-double reference for any length") {
  // Lengths around the 64-element block and the 4096-element leaf, and past several leaves.
  for (int64_t n : {1, 63, 64, 65, 4095, 4096, 4097, 100003}) {
    for (tg::ScalarType dtype : {tg::kFloat, tg::kDouble}) {
      const Tensor x = tg::randn({n}).to(dtype);
      long double reference = 0;
      for (double v : values(x)) reference += v;
      const double got = values(x.sum())[0];
      // Float lanes add 4 values each before the double accumulator (a few float roundings
      // per element, which grow like sqrt(n)), and the result rounds once to float.
      const double ref = static_cast<double>(reference);
      const double float_error = 6e-8 * std::fabs(ref) + 2e-7 * std::sqrt(static_cast<double>(n));
      const double tolerance = 1e-9 + (dtype == tg::kFloat ? float_error : 0.0);
      CHECK(std::fabs(got - ref) <= tolerance);
    }
  }
  CHECK(values(tg::full({1000000}, 0.1f).sum()) == Values{100000});
}

TEST_CASE("activations on contiguous float tensors (SIMD path) match double and the strided scalar path") {
  using Unary = std::function<Tensor(const Tensor&)>;
  using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;
  const std::vector<std::pair<std::string, Unary>> unary = {
      {"gelu", [](const Tensor& x) { return tg::gelu(x); }},
      {"gelu tanh", [](const Tensor& x) { return tg::gelu(x, "tanh"); }},
      {"silu", [](const Tensor& x) { return tg::silu(x); }},
      {"sigmoid", [](const Tensor& x) { return tg::sigmoid(x); }},
      {"tanh", [](const Tensor& x) { return tg::tanh(x); }},
      {"exp", [](const Tensor& x) { return tg::exp(x); }},
  };
  const std::vector<std::pair<std::string, Binary>> binary = {
      {"gelu_backward", [](const Tensor& g, const Tensor& x) { return tg::gelu_backward(g, x); }},
      {"gelu_backward tanh", [](const Tensor& g, const Tensor& x) { return tg::gelu_backward(g, x, "tanh"); }},
      {"silu_backward", [](const Tensor& g, const Tensor& x) { return tg::silu_backward(g, x); }},
  };
  for (int64_t n : {1, 3, 4, 7, 8, 9, 15, 16, 17, 33, 1000}) {
    CAPTURE(n);
    // Errors are compared at float32's conformance tolerance (rtol 1.3e-6), with an atol of
    // a few ulp of the largest values (|x| up to about 12).
    const Tensor x = tg::randn({n}) * 3.0, g = tg::randn({n});
    // The same values as a strided view: the scalar path of the elementwise kernel.
    const Tensor x_strided = tg::stack({x, x}, 1).select(1, 0);
    const Tensor g_strided = tg::stack({g, g}, 1).select(1, 0);
    REQUIRE((n == 1 || !x_strided.is_contiguous()));
    for (const auto& entry : unary) {  // not a binding: lambdas capture it (clang 14)
      const auto& name = entry.first;
      const auto& f = entry.second;
      CAPTURE(name);
      const Tensor y = f(x);
      CHECK(close(y, f(x.to(tg::kDouble)), 1.3e-6, 2e-6));
      CHECK(close(y, f(x_strided), 1.3e-6, 2e-6));
    }
    for (const auto& entry : binary) {
      const auto& name = entry.first;
      const auto& f = entry.second;
      CAPTURE(name);
      const Tensor y = f(g, x);
      CHECK(close(y, f(g.to(tg::kDouble), x.to(tg::kDouble)), 1.3e-6, 2e-6));
      CHECK(close(y, f(g_strided, x_strided), 1.3e-6, 2e-6));
    }
  }
  // In place through the vector path: each element is read before it is written.
  Tensor x = tg::randn({100});
  const Tensor expected = tg::gelu(x);
  tg::gelu_(x);
  CHECK(close(x, expected));
}

TEST_CASE("transposing copies (tiled) give every element at its place, for any dtype size and partial tiles") {
  // 2-D transposes with sizes that are not multiples of the tile, a 4-D permute that moves
  // the innermost dim (attention's layout change), and one with a size-1 dim in between.
  const std::vector<std::pair<Ints, Ints>> cases = {
      {{100, 70}, {1, 0}}, {{64, 64}, {1, 0}}, {{3, 33, 129}, {0, 2, 1}}, {{2, 40, 3, 50}, {0, 3, 1, 2}},
      {{50, 1, 90}, {2, 1, 0}}};
  for (const auto& entry : cases) {  // not a binding: lambdas capture it (clang 14)
    const Ints& sizes = entry.first;
    const Ints& permutation = entry.second;
    for (tg::ScalarType dtype : {tg::kFloat, tg::kDouble, tg::kHalf, tg::kByte, tg::kLong}) {
      CAPTURE(sizes);
      CAPTURE(dtype);
      const Tensor source = iota(sizes).to(dtype);
      const Tensor permuted = source.permute(permutation);
      const Tensor copy = permuted.contiguous();
      REQUIRE(copy.is_contiguous());
      // Element by element, through index arithmetic on the source's values.
      const Values source_values = values(source), copy_values = values(copy);
      const Ints permuted_sizes = shape(permuted);
      Ints index(permuted_sizes.size(), 0);
      bool all_equal = true;
      for (size_t flat = 0; flat < copy_values.size(); ++flat) {
        int64_t offset = 0;  // the element's offset in the contiguous source
        for (size_t d = 0; d < index.size(); ++d) offset += index[d] * source.strides()[permutation[d]];
        all_equal = all_equal && copy_values[flat] == source_values[static_cast<size_t>(offset)];
        for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
          if (++index[d] < permuted_sizes[d]) break;
          index[d] = 0;
        }
      }
      CHECK(all_equal);
    }
  }
  // Also on two threads, and into a strided destination through copy_.
  ThreadCount two(2);
  const Tensor big = iota({300, 500});
  CHECK(close(big.t().contiguous().t(), big));
  Tensor target = tg::empty({500, 300});
  target.copy_(big.t());
  CHECK(close(target, big.t()));
}

TEST_CASE("large transposing copies (streaming stores) place every element, with partial tiles and misaligned rows") {
  // Over 4 MiB the tile rows are written with streaming stores (see transpose_copy.cpp); the
  // sizes leave partial tiles on both edges, and a destination whose rows are not 16-byte
  // aligned takes plain stores.
  const Tensor rows = iota({1032, 1100});  // 4.3 MiB of floats
  CHECK(close(rows.t().contiguous().t(), rows));
  const Tensor doubles = iota({700, 777}).to(tg::kDouble);
  CHECK(close(doubles.t().contiguous().t(), doubles));
  const Tensor longs = iota({3, 410, 450}).to(tg::kLong);  // an outer dim around the tiles
  CHECK(close(longs.permute({0, 2, 1}).contiguous().permute({0, 2, 1}), longs));
  Tensor padded = tg::zeros({1100, 1033});
  Tensor shifted = padded.narrow(1, 1, 1032);  // rows start 4 bytes past a 16-byte boundary
  shifted.copy_(rows.t());
  CHECK(close(shifted, rows.t()));
  CHECK(close(padded.narrow(1, 0, 1), tg::zeros({1100, 1})));
  ThreadCount two(2);
  CHECK(close(rows.t().contiguous().t(), rows));
}

TEST_CASE("layer_norm forward and backward on two threads equal one thread's, and a double reference") {
  // 96 rows of 1000: the backward splits its weight and bias sums into per-thread blocks.
  const Tensor x = tg::randn({96, 1000}) * 2.0 + 0.5, w = tg::randn({1000}), b = tg::randn({1000});
  const Tensor g = tg::randn({96, 1000});
  const auto run = [&](int threads) {
    ThreadCount count(threads);
    const auto forward = tg::native_layer_norm(x, {1000}, w, b, 1e-5);
    const auto backward = tg::native_layer_norm_backward(g, x, {1000}, std::get<1>(forward), std::get<2>(forward), w,
                                                         b, {true, true, true});
    return std::make_tuple(forward, backward);
  };
  const auto [forward1, backward1] = run(1);
  const auto [forward2, backward2] = run(2);
  CHECK(close(std::get<0>(forward1), std::get<0>(forward2)));
  CHECK(close(std::get<0>(backward1), std::get<0>(backward2)));
  CHECK(close(std::get<1>(backward1), std::get<1>(backward2), 1e-6, 1e-6));
  CHECK(close(std::get<2>(backward1), std::get<2>(backward2), 1e-6, 1e-6));
  // Against the same computation in double.
  const Tensor xd = x.to(tg::kDouble), wd = w.to(tg::kDouble), bd = b.to(tg::kDouble), gd = g.to(tg::kDouble);
  const auto [yd, mean_d, rstd_d] = tg::native_layer_norm(xd, {1000}, wd, bd, 1e-5);
  const auto [gxd, gwd, gbd] =
      tg::native_layer_norm_backward(gd, xd, {1000}, mean_d, rstd_d, wd, bd, {true, true, true});
  CHECK(close(std::get<0>(forward2), yd, 1e-5, 1e-5));
  CHECK(close(std::get<0>(backward2), gxd, 1e-4, 1e-4));
  CHECK(close(std::get<1>(backward2), gwd, 1e-4, 1e-4));
  CHECK(close(std::get<2>(backward2), gbd, 1e-4, 1e-4));
}

TEST_CASE("layer_norm backward equals its formula in double, for odd row lengths and without weight or bias") {
  // Row lengths below, between and above the kernel's groups of 4 and 8; the formula is
  // evaluated here from the mean and rstd the forward returned.
  for (int64_t n : {1, 3, 7, 13, 1029}) {
    for (tg::ScalarType dtype : {tg::kDouble, tg::kFloat}) {
      for (bool affine : {true, false}) {
        CAPTURE(n);
        CAPTURE(dtype);
        CAPTURE(affine);
        const int64_t m = 5;
        const Tensor x = (tg::randn({m, n}, tg::kDouble) * 3.0 + 1.0).to(dtype);
        const Tensor g = tg::randn({m, n}, tg::kDouble).to(dtype);
        const std::optional<Tensor> w = affine ? std::optional<Tensor>(tg::randn({n}, tg::kDouble).to(dtype)) : std::nullopt;
        const std::optional<Tensor> b = affine ? std::optional<Tensor>(tg::randn({n}, tg::kDouble).to(dtype)) : std::nullopt;
        const auto [y, mean, rstd] = tg::native_layer_norm(x, {n}, w, b, 1e-5);
        const auto [gx, gw, gb] = tg::native_layer_norm_backward(g, x, {n}, mean, rstd, w, b, {true, affine, affine});
        const Values xs = values(x), gs = values(g), means = values(mean), rstds = values(rstd);
        const Values ws = affine ? values(*w) : Values(static_cast<size_t>(n), 1.0);
        Values expected_gx(xs.size()), expected_gw(static_cast<size_t>(n)), expected_gb(static_cast<size_t>(n));
        for (int64_t row = 0; row < m; ++row) {
          double sum_gw = 0, sum_gw_xhat = 0;
          for (int64_t j = 0; j < n; ++j) {
            const size_t at = static_cast<size_t>(row * n + j);
            const double x_hat = (xs[at] - means[row]) * rstds[row];
            sum_gw += gs[at] * ws[j];
            sum_gw_xhat += gs[at] * ws[j] * x_hat;
            expected_gw[j] += gs[at] * x_hat;
            expected_gb[j] += gs[at];
          }
          for (int64_t j = 0; j < n; ++j) {
            const size_t at = static_cast<size_t>(row * n + j);
            const double x_hat = (xs[at] - means[row]) * rstds[row];
            expected_gx[at] = rstds[row] * (gs[at] * ws[j] - sum_gw / n - x_hat * sum_gw_xhat / n);
          }
        }
        const double tolerance = dtype == tg::kDouble ? 1e-12 : 2e-5;
        CHECK(close(gx, make(expected_gx, {m, n}, tg::kDouble), tolerance, tolerance));
        if (affine) {
          CHECK(close(gw, make(expected_gw, {n}, tg::kDouble), tolerance, tolerance));
          CHECK(close(gb, make(expected_gb, {n}, tg::kDouble), tolerance, tolerance));
        } else {
          CHECK_FALSE(gw.defined());
          CHECK_FALSE(gb.defined());
        }
      }
    }
  }
}

TEST_CASE("im2col matches a direct gather, and col2im is its adjoint, for strides, padding and dilation") {
  const int64_t channels = 2, height = 7, width = 9;
  const Tensor image = tg::randn({1, channels, height, width}, tg::kDouble);
  const Values pixels = values(image);
  for (int64_t kw : {1, 3}) {
    for (int64_t stride : {1, 2, 3}) {
      for (int64_t pad : {0, 1, 2}) {
        for (int64_t dilation : {1, 2}) {
          CAPTURE(kw);
          CAPTURE(stride);
          CAPTURE(pad);
          CAPTURE(dilation);
          const Tensor cols = tg::im2col(image, {2, kw}, {1, dilation}, {1, pad}, {2, stride});
          const int64_t out_h = (height + 2 - 2) / 2 + 1;
          const int64_t out_w = (width + 2 * pad - dilation * (kw - 1) - 1) / stride + 1;
          REQUIRE(shape(cols) == Ints{1, channels * 2 * kw, out_h * out_w});
          Values expected;
          for (int64_t c = 0; c < channels; ++c) {
            for (int64_t i = 0; i < 2; ++i) {
              for (int64_t j = 0; j < kw; ++j) {
                for (int64_t y = 0; y < out_h; ++y) {
                  for (int64_t x = 0; x < out_w; ++x) {
                    const int64_t r = y * 2 - 1 + i, q = x * stride - pad + j * dilation;
                    const bool inside = r >= 0 && r < height && q >= 0 && q < width;
                    expected.push_back(inside ? pixels[static_cast<size_t>((c * height + r) * width + q)] : 0.0);
                  }
                }
              }
            }
          }
          CHECK(values(cols) == expected);
          // <im2col(x), y> = <x, col2im(y)>
          const Tensor y = tg::randn(shape(cols), tg::kDouble);
          const Tensor back = tg::col2im(y, {height, width}, {2, kw}, {1, dilation}, {1, pad}, {2, stride});
          CHECK((cols * y).sum().item<double>() == doctest::Approx((image * back).sum().item<double>()).epsilon(1e-12));
        }
      }
    }
  }
}

TEST_CASE("cumsum along contiguous rows (scanned eight at a time) and along an outer dim, on 1 and 2 threads") {
  const Tensor x = tg::randn({37, 1500}, tg::kDouble);
  const Values v = values(x);
  Values along_rows(v.size()), along_columns(v.size());
  for (size_t r = 0; r < 37; ++r) {
    double running = 0;
    for (size_t k = 0; k < 1500; ++k) along_rows[r * 1500 + k] = running += v[r * 1500 + k];
  }
  for (size_t k = 0; k < 1500; ++k) {
    double running = 0;
    for (size_t r = 0; r < 37; ++r) along_columns[r * 1500 + k] = running += v[r * 1500 + k];
  }
  for (int threads : {1, 2}) {
    ThreadCount count(threads);
    CHECK(values(tg::cumsum(x, 1)) == along_rows);
    CHECK(values(tg::cumsum(x, 0)) == along_columns);
    const Tensor ints = tg::arange(3 * 41, tg::kLong).reshape({41, 3}).t();  // non-contiguous input
    const Values cumulative = values(tg::cumsum(ints, 1));
    CHECK(cumulative[40] == 3 * (40 * 41 / 2));  // row 0: 0 + 3 + 6 + ... + 120
  }
}

TEST_CASE("cumsum over 4 MiB (rows streamed a cache line at a time) equals the sequential sums, with partial lines") {
  // 37 rows: four groups of eight and a partial one; row lengths leave a partial line at the
  // end of each row (the plain stores' tail). Floats sum in float, doubles in double.
  const auto check = [](tg::ScalarType dtype, int64_t length) {
    CAPTURE(length);
    const Tensor x = tg::randn({37, length}, dtype);
    const Tensor x_double = x.to(tg::kDouble);
    const Values v = values(x_double);
    Values expected(v.size());
    for (size_t r = 0; r < 37; ++r) {
      double running_double = 0;
      float running_float = 0;
      for (size_t k = 0; k < static_cast<size_t>(length); ++k) {
        const size_t at = r * static_cast<size_t>(length) + k;
        running_double += v[at];
        running_float += static_cast<float>(v[at]);
        expected[at] = dtype == tg::kFloat ? static_cast<double>(running_float) : running_double;
      }
    }
    for (int threads : {1, 2}) {
      ThreadCount count(threads);
      CHECK(values(tg::cumsum(x, 1).to(tg::kDouble)) == expected);
    }
  };
  check(tg::kDouble, 15002);  // 4.4 MB; rows of 120,016 bytes, 16-byte aligned: streamed
  check(tg::kFloat, 30004);   // the same in floats, 4 floats past the last full line
}

TEST_CASE("elementwise ops over 16 MiB (outputs streamed in chunks) give the bits of the same op on small pieces") {
  // 4.5M floats: 18 MB, over the streaming threshold (Note [Streaming large outputs] in
  // cpu/loops.h); each piece of 1M is below it. add with alpha is a multiply and an add, which
  // must not fuse on one path only. Two threads split the output at an unaligned index.
  const int64_t n = 4'500'001;
  const Tensor x = tg::randn({n}), y = tg::randn({n});
  Values expected;
  for (int64_t start = 0; start < n; start += 1'000'000) {
    const int64_t length = std::min<int64_t>(1'000'000, n - start);
    const Values piece = values(tg::add(x.narrow(0, start, length), y.narrow(0, start, length), 0.3));
    expected.insert(expected.end(), piece.begin(), piece.end());
  }
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    ThreadCount count(threads);
    CHECK(values(tg::add(x, y, 0.3)) == expected);
    Tensor in_place = x.clone();
    in_place.add_(y, 0.3);
    CHECK(values(in_place) == expected);
  }
}

TEST_CASE("index_select over 4 MiB (rows streamed) places every row, and rows of odd width take the plain copy") {
  for (int64_t width : {256, 255}) {  // 1,024-byte rows stream; 1,020-byte ones cannot
    CAPTURE(width);
    const Tensor table = tg::randn({5000, width});
    const Tensor index = (tg::rand({4200}) * 5000.0).to(tg::kLong);  // 4.3 MB of rows
    const Tensor picked = tg::index_select(table, 0, index);
    const Values table_values = values(table), index_values = values(index), got = values(picked);
    Values expected;
    expected.reserve(got.size());
    for (double row : index_values) {
      const auto start = table_values.begin() + static_cast<int64_t>(row) * width;
      expected.insert(expected.end(), start, start + width);
    }
    CHECK(got == expected);
  }
}
