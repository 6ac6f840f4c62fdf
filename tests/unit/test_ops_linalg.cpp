// Tests of the matrix products mm, bmm and addmm against a naive loop, for the BLAS dtypes
// (float, double) and the reference loop (int64, int32, float16, bfloat16), with transposed
// and strided operands, outputs that alias an input, addmm's broadcast self and beta/alpha,
// empty products, and the shape and dtype errors.
#include <cmath>

#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;

namespace {

// Small integers, so every product and sum below is exact in each dtype tested.
Values pattern(int64_t count, int64_t modulus, int64_t shift) {
  Values v;
  for (int64_t i = 0; i < count; ++i) v.push_back(static_cast<double>((i * 7 + shift) % modulus - modulus / 2));
  return v;
}

// a [n, m] @ b [m, p], row-major.
Values naive_mm(const Values& a, const Values& b, int64_t n, int64_t m, int64_t p) {
  Values c(static_cast<size_t>(n * p), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < p; ++j) {
      for (int64_t k = 0; k < m; ++k) c[i * p + j] += a[i * m + k] * b[k * p + j];
    }
  }
  return c;
}

}  // namespace

TEST_CASE("ops_linalg: mm against a naive loop") {
  const tg::ScalarType dtypes[] = {tg::kFloat, tg::kDouble, tg::kLong, tg::kInt, tg::kShort, tg::kHalf, tg::kBFloat16};
  for (tg::ScalarType dtype : dtypes) {
    CAPTURE(dtype);
    for (const Ints& nmp : {Ints{3, 5, 4}, Ints{33, 17, 29}, Ints{1, 6, 1}}) {
      const int64_t n = nmp[0], m = nmp[1], p = nmp[2];
      CAPTURE(n);
      const Values av = pattern(n * m, 7, 1), bv = pattern(m * p, 5, 3);
      const Values expected = naive_mm(av, bv, n, m, p);
      const Tensor a = make(av, {n, m}, dtype), b = make(bv, {m, p}, dtype);
      const Tensor c = tg::mm(a, b);
      CHECK(c.scalar_type() == dtype);
      CHECK(shape(c) == Ints{n, p});
      CHECK(values(c) == expected);
      CHECK(values(a.mm(b)) == expected);
      // Column-major operands (BLAS reads them transposed).
      CHECK(values(tg::mm(column_major(a), column_major(b))) == expected);
      // Every other column of a wider matrix: a layout BLAS cannot read directly.
      const Tensor wide = make(pattern(m * 2 * p, 5, 3), {m, 2 * p}, dtype);
      const Tensor strided = wide.slice(1, 0, 2 * p, 2);
      CHECK(values(tg::mm(a, strided)) == naive_mm(av, values(strided), n, m, p));
    }
  }
  CHECK(thrown<tg::NotImplementedError>([] { tg::mm(make({1}, {1, 1}, tg::kBool), make({1}, {1, 1}, tg::kBool)); }) ==
        "[mm] not implemented for 'bool'; supported: uint8, int8, int16, int32, int64, float16, float32, float64, bfloat16");
}

TEST_CASE("ops_linalg: mm out=, aliasing and empty products") {
  const Tensor a = make({1, 2, 3, 4}, {2, 2});
  const Tensor b = make({5, 6, 7, 8}, {2, 2});
  Tensor out = tg::empty({0});
  tg::mm_out(out, a, b);
  CHECK(values(out) == Values{19, 22, 43, 50});
  Tensor aliased = a.clone();
  tg::mm_out(aliased, aliased, b);  // out is mat1: computed into a temporary first
  CHECK(values(aliased) == Values{19, 22, 43, 50});
  Tensor squared = a.clone();
  tg::mm_out(squared, squared, squared);
  CHECK(values(squared) == Values{7, 10, 15, 22});
  Tensor transposed_out = column_major(tg::zeros({2, 2}));
  tg::mm_out(transposed_out, a, b);
  CHECK(transposed_out.strides().vec() == Ints{1, 2});
  CHECK(values(transposed_out) == Values{19, 22, 43, 50});

  CHECK(values(tg::mm(tg::empty({2, 0}), tg::empty({0, 3}))) == Values(6, 0.0));
  CHECK(shape(tg::mm(tg::empty({0, 3}), tg::ones({3, 2}))) == Ints{0, 2});
  CHECK(values(tg::mm(tg::empty({2, 0}, tg::kLong), tg::empty({0, 2}, tg::kLong))) == Values(4, 0.0));
}

TEST_CASE("ops_linalg: mm errors") {
  CHECK(thrown<tg::ValueError>([] { tg::mm(tg::ones({2, 3}), tg::ones({4, 5})); }) ==
        "[mm] mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  CHECK(contains(thrown<tg::ValueError>([] { tg::mm(tg::ones({2, 3, 4}), tg::ones({4, 5})); }),
                 "[mm] mat1 must be a 2-D tensor, got a 3-D tensor"));
  CHECK(thrown<tg::TypeError>([] { tg::mm(tg::ones({2, 3}), tg::ones({3, 2}, tg::kDouble)); }) ==
        "[mm] expected mat1 and mat2 to have the same dtype, but got: float32 != float64");
}

TEST_CASE("ops_linalg: bmm") {
  for (tg::ScalarType dtype : {tg::kFloat, tg::kDouble, tg::kLong, tg::kHalf}) {
    CAPTURE(dtype);
    const int64_t batch = 3, n = 4, m = 5, p = 2;
    const Values av = pattern(batch * n * m, 7, 2), bv = pattern(batch * m * p, 5, 1);
    const Tensor a = make(av, {batch, n, m}, dtype), b = make(bv, {batch, m, p}, dtype);
    Values expected;
    for (int64_t i = 0; i < batch; ++i) {
      const Values ai(av.begin() + i * n * m, av.begin() + (i + 1) * n * m);
      const Values bi(bv.begin() + i * m * p, bv.begin() + (i + 1) * m * p);
      for (double v : naive_mm(ai, bi, n, m, p)) expected.push_back(v);
    }
    const Tensor c = tg::bmm(a, b);
    CHECK(shape(c) == Ints{batch, n, p});
    CHECK(values(c) == expected);
    // Transposed matrices within each batch, and the batch dim moved innermost in memory.
    const Tensor b_t = b.transpose(1, 2).contiguous().transpose(1, 2);
    CHECK(values(a.bmm(b_t)) == expected);
    const Tensor a_batch_inner = a.permute({1, 2, 0}).contiguous().permute({2, 0, 1});
    CHECK(values(tg::bmm(a_batch_inner, b)) == expected);
    Tensor out = tg::empty({0}, dtype);
    tg::bmm_out(out, a, b);
    CHECK(values(out) == expected);
  }
  CHECK(thrown<tg::ValueError>([] { tg::bmm(tg::ones({2, 3, 4}), tg::ones({2, 5, 6})); }) ==
        "[bmm] batch1 and batch2 shapes cannot be multiplied (2x3x4 and 2x5x6)");
  CHECK(contains(thrown<tg::ValueError>([] { tg::bmm(tg::ones({2, 3, 4}), tg::ones({3, 4, 6})); }),
                 "same batch size"));
  CHECK(contains(thrown<tg::ValueError>([] { tg::bmm(tg::ones({3, 4}), tg::ones({4, 6})); }), "3-D tensor"));
}

TEST_CASE("ops_linalg: addmm") {
  for (tg::ScalarType dtype : {tg::kFloat, tg::kDouble, tg::kLong, tg::kBFloat16}) {
    CAPTURE(dtype);
    const int64_t n = 3, m = 4, p = 5;
    const Values av = pattern(n * m, 5, 1), bv = pattern(m * p, 3, 2), sv = pattern(n * p, 4, 0);
    const Tensor a = make(av, {n, m}, dtype), b = make(bv, {m, p}, dtype);
    const Values product = naive_mm(av, bv, n, m, p);
    Values expected(product.size());
    for (size_t i = 0; i < product.size(); ++i) expected[i] = 2 * sv[i] + 3 * product[i];
    const Tensor self = make(sv, {n, p}, dtype);
    CHECK(values(tg::addmm(self, a, b, 2, 3)) == expected);
    CHECK(values(self.addmm(column_major(a), b, 2, 3)) == expected);
    Tensor in_place = self.clone();
    in_place.addmm_(a, b, 2, 3);
    CHECK(values(in_place) == expected);
    Tensor column_self = column_major(self);
    column_self.addmm_(a, b, 2, 3);  // a non-contiguous self is computed aside and copied back
    CHECK(values(column_self) == expected);

    // self broadcasts to [n, p] as a row, a column or a scalar.
    const Values row = pattern(p, 4, 1);
    Values with_row(product.size());
    for (int64_t i = 0; i < n * p; ++i) with_row[i] = row[i % p] + product[i];
    CHECK(values(tg::addmm(make(row, {p}, dtype), a, b)) == with_row);
    CHECK(values(tg::addmm(make(row, {1, p}, dtype), a, b)) == with_row);
    Values with_column(product.size());
    for (int64_t i = 0; i < n * p; ++i) with_column[i] = static_cast<double>(i / p) + product[i];
    CHECK(values(tg::addmm(make({0, 1, 2}, {n, 1}, dtype), a, b)) == with_column);
    Values with_scalar(product.size());
    for (size_t i = 0; i < product.size(); ++i) with_scalar[i] = 1 + product[i];
    CHECK(values(tg::addmm(tg::scalar_tensor(1, dtype), a, b)) == with_scalar);
  }
  // beta = 0 ignores self entirely: its NaNs do not reach the result.
  const Tensor nan_self = make({NAN, NAN, NAN, NAN}, {2, 2});
  const Tensor eye = make({1, 0, 0, 1}, {2, 2});
  CHECK(values(tg::addmm(nan_self, eye, eye, 0)) == Values{1, 0, 0, 1});
  CHECK(values(tg::addmm(nan_self.to(tg::kDouble), eye.to(tg::kDouble), eye.to(tg::kDouble), 0, 2)) ==
        Values{2, 0, 0, 2});
  // out shares memory with mat1.
  Tensor a = make({1, 2, 3, 4}, {2, 2});
  tg::addmm_out(a, eye, a, eye, 1, 1);
  CHECK(values(a) == Values{2, 2, 3, 5});

  CHECK(contains(thrown<tg::ValueError>([] { tg::addmm(tg::ones({3}), tg::ones({2, 3}), tg::ones({3, 4})); }),
                 "[addmm] the expanded size of the tensor (4) must match the existing size (3)"));
  CHECK(thrown<tg::ValueError>([] { tg::addmm(tg::ones({2, 2}), tg::ones({2, 3}), tg::ones({2, 2})); }) ==
        "[addmm] mat1 and mat2 shapes cannot be multiplied (2x3 and 2x2)");
  CHECK(contains(thrown<tg::TypeError>([] {
                   tg::addmm(tg::ones({2, 2}, tg::kDouble), tg::ones({2, 2}), tg::ones({2, 2}));
                 }),
                 "[addmm] expected self and mat1 to have the same dtype"));
}

// k == 1 takes the rank-1 path (Note [Rank-1 products] in kernels/cpu/linalg_kernels.cpp), not
// BLAS: outer products of every dtype, with strided and transposed operands, int8 wrapping,
// addmm's beta and alpha, and bmm of one outer product per batch.
TEST_CASE("ops_linalg: rank-1 products (k == 1)") {
  for (tg::ScalarType dtype : {tg::kFloat, tg::kDouble, tg::kLong, tg::kHalf, tg::kBFloat16}) {
    CAPTURE(dtype);
    for (const Ints& np : {Ints{1, 1}, Ints{5, 3}, Ints{1, 17}, Ints{33, 1}, Ints{7, 40}}) {
      const int64_t n = np[0], p = np[1];
      CAPTURE(n);
      CAPTURE(p);
      const Values av = pattern(n, 7, 1), bv = pattern(p, 5, 3);
      const Values expected = naive_mm(av, bv, n, 1, p);
      const Tensor a = make(av, {n, 1}, dtype), b = make(bv, {1, p}, dtype);
      CHECK(values(tg::mm(a, b)) == expected);
      // a as every third element of a longer vector, b as a column read as a row.
      const Tensor a_strided = make(pattern(3 * n, 7, 1), {3 * n, 1}, dtype).slice(0, 0, 3 * n, 3);
      CHECK(values(tg::mm(a_strided, b)) == naive_mm(values(a_strided), bv, n, 1, p));
      CHECK(values(tg::mm(a, make(bv, {p, 1}, dtype).t())) == expected);
      // addmm: 2 * self + 3 * a @ b.
      const Values sv = pattern(n * p, 4, 0);
      Values fused(expected.size());
      for (size_t i = 0; i < fused.size(); ++i) fused[i] = 2 * sv[i] + 3 * expected[i];
      CHECK(values(tg::addmm(make(sv, {n, p}, dtype), a, b, 2, 3)) == fused);
      // bmm: one outer product per batch, with the batches of b in the innermost dim.
      const int64_t batch = 4;
      const Values abv = pattern(batch * n, 7, 2), bbv = pattern(batch * p, 5, 1);
      const Tensor ab = make(abv, {batch, n, 1}, dtype);
      const Tensor bb = make(bbv, {batch, 1, p}, dtype).permute({2, 1, 0}).contiguous().permute({2, 1, 0});
      Values batched;
      for (int64_t i = 0; i < batch; ++i) {
        const Values ai(abv.begin() + i * n, abv.begin() + (i + 1) * n);
        const Values bi(bbv.begin() + i * p, bbv.begin() + (i + 1) * p);
        for (double v : naive_mm(ai, bi, n, 1, p)) batched.push_back(v);
      }
      CHECK(values(tg::bmm(ab, bb)) == batched);
    }
  }
  // int8 products wrap like the other integer kernels: 100 * 3 = 300 = 44 (mod 256).
  CHECK(values(tg::mm(make({100, -2}, {2, 1}, tg::kChar), make({3, 1}, {1, 2}, tg::kChar))) ==
        Values{44, 100, -6, -2});
  // beta = 0 ignores self's NaNs; alpha scales once.
  const Tensor nan_self = make({NAN, NAN, NAN, NAN}, {2, 2});
  CHECK(values(tg::addmm(nan_self, make({1, 2}, {2, 1}), make({3, 4}, {1, 2}), 0, 2)) == Values{6, 8, 12, 16});
  // out is an operand: computed into a temporary first.
  Tensor column = make({1, 2}, {2, 1});
  Tensor square = make({1, 2, 3, 4}, {2, 2});
  tg::mm_out(square, square.slice(1, 0, 1), make({5, 6}, {1, 2}));
  CHECK(values(square) == Values{5, 6, 15, 18});
  CHECK(values(tg::mm(column, column.t())) == Values{1, 2, 2, 4});
}

// bmm with mat2 broadcast over the batch (stride 0) is one product of the stacked rows
// (Note [Broadcast bmm operand]); layouts whose rows are not stacked take the per-batch loop.
TEST_CASE("ops_linalg: bmm with mat2 broadcast over the batch") {
  for (tg::ScalarType dtype : {tg::kFloat, tg::kDouble, tg::kLong}) {
    CAPTURE(dtype);
    for (const Ints& bnmp : {Ints{3, 4, 5, 2}, Ints{6, 1, 9, 7}, Ints{2, 3, 1, 4}, Ints{1, 2, 3, 4}}) {
      const int64_t batch = bnmp[0], n = bnmp[1], m = bnmp[2], p = bnmp[3];
      CAPTURE(batch);
      CAPTURE(n);
      const Values av = pattern(batch * n * m, 7, 2), bv = pattern(m * p, 5, 1);
      Values expected;
      for (int64_t i = 0; i < batch; ++i) {
        const Values ai(av.begin() + i * n * m, av.begin() + (i + 1) * n * m);
        for (double v : naive_mm(ai, bv, n, m, p)) expected.push_back(v);
      }
      const Tensor a = make(av, {batch, n, m}, dtype);
      const Tensor b = make(bv, {m, p}, dtype).unsqueeze(0).expand({batch, m, p});
      CHECK(values(tg::bmm(a, b)) == expected);
      CHECK(values(tg::bmm(a, column_major(make(bv, {m, p}, dtype)).unsqueeze(0).expand({batch, m, p}))) ==
            expected);
      // Rows of one batch entry spaced apart: [batch, n, m] as a slice of [batch, 2n, m].
      const Tensor spaced = tg::zeros({batch, 2 * n, m}, dtype);
      spaced.slice(1, 0, 2 * n, 2).copy_(a);
      CHECK(values(tg::bmm(spaced.slice(1, 0, 2 * n, 2), b)) == expected);
      // The batch innermost in memory.
      CHECK(values(tg::bmm(a.permute({1, 2, 0}).contiguous().permute({2, 0, 1}), b)) == expected);
      Tensor out = tg::empty({0}, dtype);
      tg::bmm_out(out, a, b);
      CHECK(values(out) == expected);
    }
  }
}

// Results of 4 MiB and more are written with non-temporal stores (Note [Streaming stores]):
// rows of an odd length start at every alignment, so the scalar head and tail run too.
TEST_CASE("ops_linalg: rank-1 products large enough to stream") {
  for (tg::ScalarType dtype : {tg::kFloat, tg::kDouble}) {
    CAPTURE(dtype);
    const int64_t n = 1031, p = 1025;  // >= 4 MiB in float
    const Values av = pattern(n, 9, 1), bv = pattern(p, 11, 4);
    const Values expected = naive_mm(av, bv, n, 1, p);
    CHECK(values(tg::mm(make(av, {n, 1}, dtype), make(bv, {1, p}, dtype))) == expected);
    // A bmm whose batches are small but whose whole result streams, b strided.
    const int64_t batch = 9, rows = 301, cols = 523;
    const Values abv = pattern(batch * rows, 13, 2), bbv = pattern(batch * cols * 2, 7, 5);
    const Tensor b = make(bbv, {batch, 1, 2 * cols}, dtype).slice(2, 0, 2 * cols, 2);
    Values batched;
    for (int64_t i = 0; i < batch; ++i) {
      const Values ai(abv.begin() + i * rows, abv.begin() + (i + 1) * rows);
      const Values bi = values(b.select(0, i));
      for (double v : naive_mm(ai, bi, rows, 1, cols)) batched.push_back(v);
    }
    CHECK(values(tg::bmm(make(abv, {batch, rows, 1}, dtype), b)) == batched);
  }
}

namespace {

// Element-wise equality that also holds for NaN against NaN and tells +0 from -0.
bool same_values(const Values& got, const Values& want) {
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) != std::isnan(want[i])) return false;
    if (std::isnan(got[i])) continue;
    if (got[i] != want[i] || std::signbit(got[i]) != std::signbit(want[i])) return false;
  }
  return true;
}

// A [n, k] matrix with at most one nonzero per row: row i holds a value at column (3i mod k),
// every fourth row is all zeros.
Values one_hot_pattern(int64_t n, int64_t k) {
  Values a(static_cast<size_t>(n * k), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    if (i % 4 != 3) a[i * k + (3 * i) % k] = static_cast<double>(i % 5) - 2.5;
  }
  return a;
}

}  // namespace

// A left operand with at most one nonzero per row is a selection of b's rows (Note [One-hot
// rows] in kernels/cpu/one_hot_rows.h): the results must be the dense product's, NaN and the
// sign of zero included, whatever the layouts.
TEST_CASE("ops_linalg: left operands with one nonzero per row") {
  for (tg::ScalarType dtype : {tg::kFloat, tg::kDouble}) {
    CAPTURE(dtype);
    for (const Ints& nkp : {Ints{2, 2, 3}, Ints{16, 9, 33}, Ints{70, 64, 65}}) {
      const int64_t n = nkp[0], k = nkp[1], p = nkp[2];
      CAPTURE(n);
      const Values av = one_hot_pattern(n, k), bv = pattern(k * p, 9, 2);
      const Values expected = naive_mm(av, bv, n, k, p);
      const Tensor a = make(av, {n, k}, dtype), b = make(bv, {k, p}, dtype);
      CHECK(values(tg::mm(a, b)) == expected);
      CHECK(values(tg::mm(column_major(a), column_major(b))) == expected);
      CHECK(values(tg::mm(a, make(bv, {p, k}, dtype).t())) == naive_mm(av, values(make(bv, {p, k}, dtype).t()), n, k, p));
      // addmm: 2 * self + 3 * a @ b, and bmm over a batch of the same operands.
      const Values sv = pattern(n * p, 4, 0);
      Values fused(expected.size());
      for (size_t i = 0; i < fused.size(); ++i) fused[i] = 2 * sv[i] + 3 * expected[i];
      CHECK(values(tg::addmm(make(sv, {n, p}, dtype), a, b, 2, 3)) == fused);
      Values twice = expected;
      twice.insert(twice.end(), expected.begin(), expected.end());
      CHECK(values(tg::bmm(tg::stack({a, a}), tg::stack({b, b}))) == twice);
    }
    // An infinity or NaN in b reaches every row through 0 * inf, as in the dense sum.
    for (double bad : {INFINITY, -INFINITY, NAN}) {
      const int64_t n = 6, k = 5, p = 4;
      const Values av = one_hot_pattern(n, k);
      Values bv = pattern(k * p, 9, 2);
      bv[2 * p + 1] = bad;
      CHECK(same_values(values(tg::mm(make(av, {n, k}, dtype), make(bv, {k, p}, dtype))), naive_mm(av, bv, n, k, p)));
    }
    // -1 * 0 is -0, but a dense sum starts at +0: the product is +0.
    const Tensor product = tg::mm(make({-1, 0, 0, 0, 0, -2}, {2, 3}, dtype), make({0, 1, 2, 3, 4, 0}, {3, 2}, dtype));
    CHECK(same_values(values(product), Values{0, -1, -8, 0}));
    // A NaN in a counts as a nonzero: two in a row is a dense row, one is selected.
    CHECK(same_values(values(tg::mm(make({NAN, 0, 0, 1}, {2, 2}, dtype), make({1, 2, 3, 4}, {2, 2}, dtype))),
                      Values{NAN, NAN, 3, 4}));
  }
}
