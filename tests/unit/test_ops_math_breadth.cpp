// Tests of the operators of issue 20 (first half): the elementwise math functions, maximum /
// minimum / fmax / fmin, clamp with tensor bounds, logsumexp, the sort family, repeat / tile /
// repeat_interleave / roll / flip, einsum, and index_fill / index_copy / scatter. Values are
// checked against <cmath> or hand-computed results; the generated conformance suite adds
// every variant, dtype, gradient and batching check.
#include <cmath>
#include <limits>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

void check_close(const Values& got, const Values& expected, double tol = 1e-12) {
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i])) {
      CHECK(std::isnan(got[i]));
    } else if (std::isinf(expected[i])) {
      CHECK(got[i] == expected[i]);
    } else {
      CHECK(got[i] == doctest::Approx(expected[i]).epsilon(tol));
    }
  }
}

Values apply(const Values& xs, double (*f)(double)) {
  Values out;
  for (double x : xs) out.push_back(f(x));
  return out;
}

}  // namespace

TEST_CASE("math_breadth: the floating unary functions agree with <cmath> in float64") {
  const Values xs{-0.75, -0.1, 0.0, 0.3, 0.9};
  const Tensor x = make(xs, {5}, tg::kDouble);
  check_close(values(tg::sin(x)), apply(xs, std::sin));
  check_close(values(x.cos()), apply(xs, std::cos));
  check_close(values(tg::tan(x)), apply(xs, std::tan));
  check_close(values(tg::asin(x)), apply(xs, std::asin));
  check_close(values(tg::acos(x)), apply(xs, std::acos));
  check_close(values(tg::atan(x)), apply(xs, std::atan));
  check_close(values(tg::sinh(x)), apply(xs, std::sinh));
  check_close(values(tg::cosh(x)), apply(xs, std::cosh));
  check_close(values(tg::exp2(x)), apply(xs, std::exp2));
  check_close(values(tg::expm1(x)), apply(xs, std::expm1));
  check_close(values(tg::log1p(x)), apply(xs, std::log1p));
  check_close(values(tg::erf(x)), apply(xs, std::erf));
  const Tensor positive = make({0.5, 1, 8, 1000}, {4}, tg::kDouble);
  check_close(values(tg::log2(positive)), {-1, 0, 3, std::log2(1000.0)});
  check_close(values(tg::log10(positive)), {std::log10(0.5), 0, std::log10(8.0), 3});
  // Outside the domain: NaN, as <cmath>.
  CHECK(std::isnan(values(tg::asin(make({2}, {1}, tg::kDouble)))[0]));
}

TEST_CASE("math_breadth: erfinv inverts erf, with LibTorch's values at the ends") {
  const Values ys{-0.999, -0.5, 0.0, 0.25, 0.9, 0.999999};
  const Tensor y = make(ys, {6}, tg::kDouble);
  check_close(values(tg::erf(tg::erfinv(y))), ys, 1e-13);
  const Values edges = values(tg::erfinv(make({1, -1, 1.5, kNan}, {4}, tg::kDouble)));
  CHECK(edges[0] == kInf);
  CHECK(edges[1] == -kInf);
  CHECK(std::isnan(edges[2]));
  CHECK(std::isnan(edges[3]));
  // float32 through its own path.
  check_close(values(tg::erf(tg::erfinv(make({-0.5, 0.7}, {2})))), {-0.5, 0.7}, 1e-6);
}

TEST_CASE("math_breadth: integral inputs give the default dtype; in-place and out= variants") {
  const Tensor i = make({0, 1, 2}, {3}, tg::kLong);
  const Tensor s = tg::sin(i);
  CHECK(s.scalar_type() == tg::kFloat);
  check_close(values(s), {0, std::sin(1.0f), std::sin(2.0f)}, 1e-6);
  Tensor y = make({0.5, 1.0}, {2}, tg::kDouble);
  y.log1p_();
  check_close(values(y), {std::log1p(0.5), std::log1p(1.0)});
  Tensor out = tg::empty({0}, tg::TensorOptions().dtype(tg::kDouble));
  tg::cosh_out(out, make({0.0, 1.0}, {2}, tg::kDouble));
  check_close(values(out), {1.0, std::cosh(1.0)});
  CHECK(contains(thrown<tg::Error>([&] { i.clone().sin_(); }), "sin"));  // float result into an int64 self
}

TEST_CASE("math_breadth: atan2 takes the quadrant from both signs and broadcasts") {
  const Tensor y = make({1, 1, -1, -1}, {4}, tg::kDouble);
  const Tensor x = make({1, -1, -1, 1}, {4}, tg::kDouble);
  check_close(values(tg::atan2(y, x)), {std::atan2(1, 1), std::atan2(1, -1), std::atan2(-1, -1), std::atan2(-1, 1)});
  CHECK(shape(tg::atan2(make({1, 2}, {2, 1}), make({1, 2, 3}, {3}))) == Ints{2, 3});
  CHECK(tg::atan2(make({1}, {1}, tg::kInt), make({1}, {1}, tg::kInt)).scalar_type() == tg::kFloat);
}

TEST_CASE("math_breadth: maximum/minimum propagate NaN, fmax/fmin skip it") {
  const Tensor a = make({1, kNan, 3, kNan, -0.5}, {5}, tg::kDouble);
  const Tensor b = make({2, 1, kNan, kNan, -1}, {5}, tg::kDouble);
  check_close(values(tg::maximum(a, b)), {2, kNan, kNan, kNan, -0.5});
  check_close(values(tg::minimum(a, b)), {1, kNan, kNan, kNan, -1});
  check_close(values(tg::fmax(a, b)), {2, 1, 3, kNan, -0.5});
  check_close(values(tg::fmin(a, b)), {1, 1, 3, kNan, -1});
  // Integral and bool dtypes, and promotion.
  CHECK(values(tg::maximum(make({1, -5}, {2}, tg::kLong), make({0, 3}, {2}, tg::kLong))) == Values{1, 3});
  CHECK(values(tg::minimum(make({1, 0}, {2}, tg::kBool), make({1, 1}, {2}, tg::kBool))) == Values{1, 0});
  CHECK(tg::maximum(make({1}, {1}, tg::kInt), make({0.5}, {1})).scalar_type() == tg::kFloat);
}

TEST_CASE("math_breadth: maximum's gradient goes to the larger input, half to each on a tie") {
  Tensor a = make({1, 5, 2}, {3}, tg::kDouble).requires_grad_(true);
  Tensor b = make({3, 4, 2}, {3}, tg::kDouble).requires_grad_(true);
  tg::maximum(a, b).sum().backward();
  CHECK(values(a.grad()) == Values{0, 1, 0.5});
  CHECK(values(b.grad()) == Values{1, 0, 0.5});
}

TEST_CASE("math_breadth: clamp with tensor bounds broadcasts, promotes and lets max win") {
  const Tensor x = make({-2, 0, 2, 5}, {2, 2});
  const Tensor lo = make({-1, 1}, {2});
  const Tensor hi = make({3}, {1});
  CHECK(values(tg::clamp(x, lo, hi)) == Values{-1, 1, 2, 3});
  CHECK(values(x.clamp(lo, std::nullopt)) == Values{-1, 1, 2, 5});
  CHECK(values(tg::clamp(x, std::nullopt, hi)) == Values{-2, 0, 2, 3});
  CHECK(values(tg::clamp(x, make({4}, {1}), make({1}, {1}))) == Values{1, 1, 1, 1});  // lo > hi: hi
  CHECK(tg::clamp(make({1, 2}, {2}, tg::kLong), make({1.5}, {1}), std::nullopt).scalar_type() == tg::kFloat);
  CHECK(contains(thrown<tg::Error>([&] { tg::clamp(x, std::optional<Tensor>(), std::optional<Tensor>()); }),
                 "[clamp] At least one of 'min' or 'max' must not be None"));
}

TEST_CASE("math_breadth: logsumexp is stable for large, -inf and integral inputs") {
  const Tensor x = make({1, 2, 3, 1000, 1000, -kInf}, {2, 3}, tg::kDouble);
  check_close(values(tg::logsumexp(x, {1})),
              {std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)), 1000 + std::log(2.0)});
  CHECK(shape(x.logsumexp({1}, true)) == Ints{2, 1});
  CHECK(values(tg::logsumexp(make({-kInf, -kInf}, {2}), {0}))[0] == -kInf);
  CHECK(values(tg::logsumexp(make({kInf, 1}, {2}), {0}))[0] == kInf);
  const Tensor i = tg::logsumexp(make({0, 0}, {2}, tg::kLong), {0});
  CHECK(i.scalar_type() == tg::kFloat);
  check_close(values(i), {std::log(2.0)}, 1e-6);
  // Its gradient is softmax.
  Tensor g = make({1, 2, 3}, {3}, tg::kDouble).requires_grad_(true);
  tg::logsumexp(g, {0}).backward();
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  check_close(values(g.grad()), {std::exp(1.0) / z, std::exp(2.0) / z, std::exp(3.0) / z});
}

TEST_CASE("math_breadth: sort orders values, puts NaN last (first descending) and is stable") {
  const Tensor x = make({3, kNan, 1, 2, 1}, {5}, tg::kDouble);
  auto [v, i] = tg::sort(x);
  check_close(values(v), {1, 1, 2, 3, kNan});
  CHECK(values(i) == Values{2, 4, 3, 0, 1});
  auto [vd, id] = x.sort(0, /*descending=*/true);
  check_close(values(vd), {kNan, 3, 2, 1, 1});
  CHECK(values(id) == Values{1, 0, 3, 2, 4});
  // Ties keep index order in both directions, with stable=true as LibTorch promises.
  const Tensor ties = make({1, 0, 1, 0, 1, 0}, {6}, tg::kLong);
  CHECK(values(std::get<1>(tg::sort(ties, true, 0, false))) == Values{1, 3, 5, 0, 2, 4});
  CHECK(values(std::get<1>(tg::sort(ties, true, 0, true))) == Values{0, 2, 4, 1, 3, 5});
  // Along dim 0 of a matrix, and argsort.
  const Tensor m = make({3, 1, 2, 4}, {2, 2});
  CHECK(values(std::get<0>(tg::sort(m, 0))) == Values{2, 1, 3, 4});
  CHECK(values(tg::argsort(m, 1, true)) == Values{0, 1, 1, 0});
  CHECK(values(m.argsort(true, 0, false)) == Values{1, 0, 0, 1});
  CHECK(contains(thrown<tg::Error>([&] { tg::sort(m, 2); }), "sort"));
}

TEST_CASE("math_breadth: kthvalue and median") {
  const Tensor x = make({5, 1, 4, 2, 3, 6}, {2, 3});
  auto [v, i] = tg::kthvalue(x, 2, 1);
  CHECK(values(v) == Values{4, 3});
  CHECK(values(i) == Values{2, 1});
  CHECK(shape(std::get<0>(x.kthvalue(1, 0, true))) == Ints{1, 3});
  CHECK(contains(thrown<tg::Error>([&] { tg::kthvalue(x, 4, 1); }), "[kthvalue] selected number k out of range"));
  // The lower median of an even count, and NaN when there is one.
  CHECK(values(tg::median(make({4, 1, 3, 2}, {4})))[0] == 2);
  auto [mv, mi] = tg::median(make({1, kNan, 3, 2, 5, 4}, {2, 3}, tg::kDouble), 1);
  CHECK(std::isnan(values(mv)[0]));
  CHECK(values(mv)[1] == 4);
  CHECK(values(mi) == Values{1, 2});
  CHECK(contains(thrown<tg::Error>([&] { tg::median(tg::empty({0})); }), "[median]"));
}

TEST_CASE("math_breadth: repeat, tile and repeat_interleave") {
  const Tensor x = make({1, 2, 3}, {3});
  CHECK(values(x.repeat({2})) == Values{1, 2, 3, 1, 2, 3});
  const Tensor r = x.repeat({2, 2});
  CHECK(shape(r) == Ints{2, 6});
  CHECK(values(r) == Values{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3});
  CHECK(values(make({1, 2, 3, 4}, {2, 2}).repeat({1, 2})) == Values{1, 2, 1, 2, 3, 4, 3, 4});
  CHECK(contains(thrown<tg::Error>([&] { make({1, 2, 3, 4}, {2, 2}).repeat({2}); }),
                 "[repeat] Number of dimensions of repeat dims can not be smaller"));
  CHECK(values(tg::tile(make({1, 2, 3, 4}, {2, 2}), {2})) == Values{1, 2, 1, 2, 3, 4, 3, 4});
  CHECK(values(tg::repeat_interleave(x, 2)) == Values{1, 1, 2, 2, 3, 3});
  CHECK(values(tg::repeat_interleave(make({1, 2, 3, 4}, {2, 2}), 2, 0)) == Values{1, 2, 1, 2, 3, 4, 3, 4});
  CHECK(values(tg::repeat_interleave(x, make({0, 2, 1}, {3}, tg::kLong), 0)) == Values{2, 2, 3});
  CHECK(values(tg::repeat_interleave(make({2, 0, 1}, {3}, tg::kLong))) == Values{0, 0, 2});
  CHECK(contains(thrown<tg::Error>([&] { tg::repeat_interleave(x, make({1, 2}, {2}, tg::kLong), 0); }),
                 "repeats must have the same size as input along dim"));
  // Gradients sum over the copies.
  Tensor g = make({1, 2}, {2}, tg::kDouble).requires_grad_(true);
  g.repeat({3}).sum().backward();
  CHECK(values(g.grad()) == Values{3, 3});
}

TEST_CASE("math_breadth: roll and flip") {
  const Tensor m = make({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(values(tg::roll(m, {1}, {1})) == Values{3, 1, 2, 6, 4, 5});
  CHECK(values(tg::roll(m, {-1}, {1})) == Values{2, 3, 1, 5, 6, 4});
  CHECK(values(m.roll({1})) == Values{6, 1, 2, 3, 4, 5});  // flattened
  CHECK(values(tg::roll(m, {1, 4}, {0, 1})) == Values{6, 4, 5, 3, 1, 2});
  CHECK(contains(thrown<tg::Error>([&] { tg::roll(m, {1, 2}, {0}); }), "[roll] shifts and dimensions must align"));
  CHECK(values(tg::flip(m, {0})) == Values{4, 5, 6, 1, 2, 3});
  CHECK(values(m.flip({0, 1})) == Values{6, 5, 4, 3, 2, 1});
  CHECK(contains(thrown<tg::Error>([&] { tg::flip(m, {1, -1}); }), "appears multiple times"));
  const Tensor same = tg::flip(m, {});
  CHECK(!same.is_same(m));  // a copy, as LibTorch
}

TEST_CASE("math_breadth: einsum matches mm, bmm, sums, traces and outer products") {
  tg::manual_seed(3);
  const Tensor a = tg::randn({3, 4}, tg::TensorOptions().dtype(tg::kDouble));
  const Tensor b = tg::randn({4, 5}, tg::TensorOptions().dtype(tg::kDouble));
  const Tensor c = tg::randn({5, 2}, tg::TensorOptions().dtype(tg::kDouble));
  check_close(values(tg::einsum("ij,jk->ik", {a, b})), values(tg::mm(a, b)));
  check_close(values(tg::einsum("ij,jk", {a, b})), values(tg::mm(a, b)));  // implicit output
  check_close(values(tg::einsum("ij, jk, kl -> il", {a, b, c})), values(tg::mm(tg::mm(a, b), c)));
  check_close(values(tg::einsum("ij->ji", {a})), values(a.t().contiguous()));
  check_close(values(tg::einsum("ij->", {a})), values(a.sum()));
  check_close(values(tg::einsum("ij->j", {a})), values(a.sum({0})));
  const Tensor x = tg::randn({2, 3, 4}, tg::TensorOptions().dtype(tg::kDouble));
  const Tensor y = tg::randn({2, 4, 5}, tg::TensorOptions().dtype(tg::kDouble));
  check_close(values(tg::einsum("bij,bjk->bik", {x, y})), values(tg::bmm(x, y)));
  check_close(values(tg::einsum("...ij,...jk->...ik", {x, y})), values(tg::bmm(x, y)));
  check_close(values(tg::einsum("bij,jk->bik", {x, b})), values(tg::matmul(x, b)));
  const Tensor s = make({1, 2, 3, 4}, {2, 2}, tg::kDouble);
  CHECK(values(tg::einsum("ii", {s})) == Values{5});      // trace
  CHECK(values(tg::einsum("ii->i", {s})) == Values{1, 4});  // diagonal
  CHECK(values(tg::einsum("i,j->ij", {make({1, 2}, {2}), make({3, 4, 5}, {3})})) == Values{3, 4, 5, 6, 8, 10});
  CHECK(values(tg::einsum("i,i", {make({1, 2}, {2}), make({3, 4}, {2})})) == Values{11});
  // Size-1 dims broadcast.
  check_close(values(tg::einsum("bij,bjk->bik", {x, y.narrow(0, 0, 1)})), values(tg::matmul(x, y.narrow(0, 0, 1))));
  // Gradients flow to every operand, as through mm.
  Tensor ga = a.clone().requires_grad_(true), gb = b.clone().requires_grad_(true);
  tg::einsum("ij,jk->ik", {ga, gb}).sum().backward();
  Tensor ra = a.clone().requires_grad_(true), rb = b.clone().requires_grad_(true);
  tg::mm(ra, rb).sum().backward();
  check_close(values(ga.grad()), values(ra.grad()));
  check_close(values(gb.grad()), values(rb.grad()));
}

TEST_CASE("math_breadth: einsum refuses malformed equations with what it expected") {
  const Tensor a = tg::ones({2, 3});
  CHECK(contains(thrown<tg::Error>([&] { tg::einsum("ij,jk->ik", {a}); }), "has 2 operands but 1 tensors"));
  CHECK(contains(thrown<tg::Error>([&] { tg::einsum("ijk->i", {a}); }), "has 2 dims but the subscripts 'ijk' name 3"));
  CHECK(contains(thrown<tg::Error>([&] { tg::einsum("i1->i", {a}); }), "invalid subscript '1'"));
  CHECK(contains(thrown<tg::Error>([&] { tg::einsum("ij->iz", {a}); }), "does not appear"));
  CHECK(contains(thrown<tg::Error>([&] { tg::einsum("ij->ii", {a}); }), "more than once"));
  CHECK(contains(thrown<tg::Error>([&] { tg::einsum("ij,ij->i", {a, tg::ones({2, 4})}); }), "do not broadcast"));
}

TEST_CASE("math_breadth: index_fill, index_copy and scatter write like LibTorch; the last write wins") {
  const Tensor x = tg::zeros({3, 2});
  const Tensor idx = make({2, 0}, {2}, tg::kLong);
  CHECK(values(tg::index_fill(x, 0, idx, 7)) == Values{7, 7, 0, 0, 7, 7});
  CHECK(values(x.index_fill(1, make({-1}, {}, tg::kLong), 1)) == Values{0, 1, 0, 1, 0, 1});
  const Tensor src = make({1, 2, 3, 4}, {2, 2});
  CHECK(values(tg::index_copy(x, 0, idx, src)) == Values{3, 4, 0, 0, 1, 2});
  CHECK(values(tg::index_copy(x, 0, make({1, 1}, {2}, tg::kLong), src)) == Values{0, 0, 3, 4, 0, 0});
  Tensor y = x.clone();
  y.index_copy_(0, idx, src);
  CHECK(values(y) == Values{3, 4, 0, 0, 1, 2});
  CHECK(contains(thrown<tg::Error>([&] { tg::index_copy(x, 0, make({3, 0}, {2}, tg::kLong), src); }),
                 "index 3 is out of bounds"));
  CHECK(contains(thrown<tg::Error>([&] { tg::index_copy(x, 0, idx, src.to(tg::kDouble)); }), "same dtype"));
  // scatter: out[index[i][j]][j] = src[i][j] along dim 0.
  const Tensor sidx = make({1, 0, 2, 1}, {2, 2}, tg::kLong);
  const Tensor s = tg::scatter(tg::zeros({3, 2}), 0, sidx, src);
  CHECK(values(s) == Values{0, 2, 1, 4, 3, 0});
  CHECK(values(tg::scatter(tg::zeros({3, 2}), 0, make({1, 1, 1, 1}, {2, 2}, tg::kLong), src)) ==
        Values{0, 0, 3, 4, 0, 0});
  CHECK(values(tg::zeros({3, 2}).scatter(1, make({1, 1, 0}, {3, 1}, tg::kLong), 5.0)) == Values{0, 5, 0, 5, 5, 0});
  Tensor z = tg::zeros({3, 2});
  z.scatter_(0, sidx, src);
  CHECK(values(z) == Values{0, 2, 1, 4, 3, 0});
  // The gradient reaches self outside the written positions and src where it was written.
  Tensor gs = tg::ones({3, 2}).requires_grad_(true), gsrc = src.clone().requires_grad_(true);
  tg::scatter(gs, 0, sidx, gsrc).sum().backward();
  CHECK(values(gs.grad()) == Values{1, 0, 0, 0, 0, 1});
  CHECK(values(gsrc.grad()) == Values{1, 1, 1, 1});
}
