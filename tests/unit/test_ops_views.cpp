// Tests for the view operators (kernels/composite/views.cpp): every view shares its base's
// storage and version counter, has the sizes, strides and offset PyTorch gives it, and rejects
// bad arguments with the error a PyTorch user would see. Values are read through the strides
// (no kernel involved), so a wrong stride shows as a wrong value.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "ops_test_helpers.h"

namespace {

using tg::Tensor;

// 0, 1, ..., n-1 as float32 with shape `sizes` (contiguous, fresh storage).
Tensor iota(std::vector<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<float> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = static_cast<float>(i);
  return tg::tensor(values).view(sizes);
}

using ops_test::contains;
using ops_test::elements;
using ops_test::vec;
using ops_test::Ints;
using ops_test::thrown;
using ops_test::Values;

// The checks every view must pass: same storage, shared version counter, same keys.
void check_shares_storage(const Tensor& view, const Tensor& base) {
  CHECK(view.is_alias_of(base));
  CHECK_FALSE(view.is_same(base));
  CHECK(view._version() == base._version());
  const uint32_t before = base._version();
  view.unsafeGetTensorImpl()->bump_version();
  CHECK(base._version() == before + 1);
  CHECK(view.key_set() == base.key_set());
}

}  // namespace

TEST_CASE("ops_views: view shares storage and computes contiguous strides") {
  Tensor base = iota({12});
  Tensor v = base.view({3, 4});
  check_shares_storage(v, base);
  CHECK(vec(v.sizes()) == Ints{3, 4});
  CHECK(vec(v.strides()) == Ints{4, 1});
  CHECK(v.storage_offset() == 0);
  CHECK(v.is_contiguous());
  CHECK(v.data_ptr() == base.data_ptr());

  // Writing through the view changes the base.
  v.data_ptr<float>()[5] = 100.0f;
  CHECK(base.data_ptr<float>()[5] == 100.0f);

  CHECK(vec(base.view({-1, 6}).sizes()) == Ints{2, 6});
  CHECK(vec(base.view({2, -1, 3}).sizes()) == Ints{2, 2, 3});
  CHECK(vec(base.view({12, 1}).strides()) == Ints{1, 1});

  Tensor scalar = iota({1}).view({});
  CHECK(scalar.dim() == 0);
  CHECK(vec(scalar.view({1, 1}).sizes()) == Ints{1, 1});
}

TEST_CASE("ops_views: view rejects shapes that do not fit, and strides that cannot be viewed") {
  Tensor base = iota({3, 4});
  CHECK(contains(thrown<tg::Error>([&] { base.view({5, 3}); }), "shape '[5, 3]' is invalid for input of size 12"));
  CHECK(contains(thrown<tg::Error>([&] { base.view({-1, -1}); }), "only one dimension can be inferred"));
  CHECK(contains(thrown<tg::Error>([&] { base.view({-1, 5}); }), "is invalid for input of size 12"));
  CHECK(contains(thrown<tg::Error>([&] { base.view({-2, -6}); }), "invalid shape dimension -2"));
  CHECK(contains(thrown<tg::Error>([&] { iota({0}).view({-1, 0}); }), "ambiguous"));

  // A transposed tensor cannot be flattened without a copy...
  Tensor t = base.t();
  CHECK(contains(thrown<tg::Error>([&] { t.view({12}); }),
                 "view size is not compatible with input tensor's size and stride"));
  // ...but it can be split or given size-1 dims where its strides allow.
  Tensor split = t.view({2, 2, 3});
  CHECK(vec(split.strides()) == Ints{2, 1, 4});
  CHECK(elements(split) == elements(t));
  CHECK(vec(t.view({4, 1, 3}).strides()) == Ints{1, 12, 4});

  Tensor cols = base.slice(1, 0, 2);  // sizes [3, 2], strides [4, 1]
  CHECK_THROWS_AS(cols.view({6}), tg::Error);
  CHECK(vec(cols.view({3, 2, 1}).sizes()) == Ints{3, 2, 1});
  CHECK(elements(cols.view({3, 1, 2})) == Values{0, 1, 4, 5, 8, 9});
}

TEST_CASE("ops_views: reshape views when the strides allow and copies otherwise") {
  Tensor base = iota({3, 4});
  Tensor r = base.reshape({4, 3});
  check_shares_storage(r, base);
  CHECK(vec(tg::reshape(base, {-1}).sizes()) == Ints{12});

  Tensor t = base.t();
  Tensor flat = t.reshape({-1});
  CHECK_FALSE(flat.is_alias_of(base));
  CHECK(flat.is_contiguous());
  CHECK(elements(flat) == Values{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  CHECK_THROWS_AS(base.reshape({5, -1}), tg::Error);
}

TEST_CASE("ops_views: as_strided") {
  Tensor base = iota({6});
  Tensor s = base.as_strided({2, 2}, {1, 2}, 1);
  check_shares_storage(s, base);
  CHECK(s.storage_offset() == 1);
  CHECK(elements(s) == Values{1, 3, 2, 4});
  CHECK(elements(tg::as_strided(base, {3}, {2})) == Values{0, 2, 4});  // offset defaults to self's
  CHECK(elements(base.slice(0, 2).as_strided({2}, {1})) == Values{2, 3});
  CHECK(contains(thrown<tg::Error>([&] { base.as_strided({2, 3}, {3, 1}, 1); }), "storage"));
  CHECK_THROWS_AS(base.as_strided({2}, {-1}), tg::ValueError);
  CHECK_THROWS_AS(base.as_strided({2, 2}, {1}), tg::Error);
}

TEST_CASE("ops_views: transpose, t and permute") {
  Tensor base = iota({2, 3, 4});
  Tensor tr = base.transpose(0, 2);
  check_shares_storage(tr, base);
  CHECK(vec(tr.sizes()) == Ints{4, 3, 2});
  CHECK(vec(tr.strides()) == Ints{1, 4, 12});
  CHECK_FALSE(tr.is_contiguous());
  CHECK(vec(tg::transpose(base, -1, -2).sizes()) == Ints{2, 4, 3});
  CHECK(vec(base.transpose(1, 1).strides()) == Ints{12, 4, 1});
  std::string message = thrown<tg::IndexError>([&] { base.transpose(0, 3); });
  CHECK(contains(message, "[-3, 2]"));
  CHECK(contains(message, "got 3"));

  Tensor m = iota({2, 3});
  Tensor mt = m.t();
  check_shares_storage(mt, m);
  CHECK(vec(mt.sizes()) == Ints{3, 2});
  CHECK(elements(mt) == Values{0, 3, 1, 4, 2, 5});
  CHECK(vec(iota({5}).t().sizes()) == Ints{5});
  CHECK(tg::t(iota({1}).view({})).dim() == 0);
  CHECK(contains(thrown<tg::Error>([&] { base.t(); }), "t() expects a tensor with <= 2 dimensions, but self is 3D"));

  Tensor p = base.permute({2, 0, 1});
  check_shares_storage(p, base);
  CHECK(vec(p.sizes()) == Ints{4, 2, 3});
  CHECK(vec(p.strides()) == Ints{1, 12, 4});
  CHECK(vec(base.permute({-1, 1, 0}).sizes()) == Ints{4, 3, 2});
  CHECK(contains(thrown<tg::Error>([&] { base.permute({0, 1}); }), "number of dims don't match"));
  CHECK(contains(thrown<tg::Error>([&] { base.permute({0, 1, 1}); }), "repeated dim"));
  CHECK_THROWS_AS(base.permute({0, 1, 3}), tg::IndexError);
}

TEST_CASE("ops_views: select") {
  Tensor base = iota({3, 4});
  Tensor row = base.select(0, 1);
  check_shares_storage(row, base);
  CHECK(vec(row.sizes()) == Ints{4});
  CHECK(row.storage_offset() == 4);
  CHECK(elements(row) == Values{4, 5, 6, 7});
  Tensor last_col = tg::select(base, 1, -1);
  CHECK(vec(last_col.strides()) == Ints{4});
  CHECK(elements(last_col) == Values{3, 7, 11});
  CHECK(elements(base.select(-1, -4)) == Values{0, 4, 8});
  Tensor element = row.select(0, 2);
  CHECK(element.dim() == 0);
  CHECK(elements(element) == Values{6});

  CHECK(contains(thrown<tg::IndexError>([&] { base.select(0, 3); }), "index 3 is out of range"));
  CHECK_THROWS_AS(base.select(1, -5), tg::IndexError);
  CHECK(contains(thrown<tg::IndexError>([&] { base.select(2, 0); }), "[-2, 1]"));
  CHECK_THROWS_AS(element.select(0, 0), tg::IndexError);
}

TEST_CASE("ops_views: slice and narrow") {
  Tensor base = iota({4, 5});
  Tensor s = base.slice(1, 1, 3);
  check_shares_storage(s, base);
  CHECK(vec(s.sizes()) == Ints{4, 2});
  CHECK(vec(s.strides()) == Ints{5, 1});
  CHECK(s.storage_offset() == 1);
  CHECK_FALSE(s.is_contiguous());

  Tensor even_rows = base.slice(0, std::nullopt, std::nullopt, 2);
  CHECK(vec(even_rows.sizes()) == Ints{2, 5});
  CHECK(vec(even_rows.strides()) == Ints{10, 1});
  CHECK(elements(even_rows.select(1, 0)) == Values{0, 10});

  CHECK(elements(base.select(0, 0).slice(0, -2)) == Values{3, 4});
  CHECK(elements(base.select(0, 0).slice(0, 1, -1, 2)) == Values{1, 3});
  CHECK(elements(base.select(0, 0).slice(0, 3, 100)) == Values{3, 4});
  CHECK(elements(base.select(0, 0).slice(0, -100, 2)) == Values{0, 1});
  CHECK(base.slice(1, 4, 2).size(1) == 0);
  CHECK(tg::slice(base).sizes() == base.sizes());
  CHECK(contains(thrown<tg::ValueError>([&] { base.slice(0, 0, 2, 0); }), "step must be positive"));
  CHECK_THROWS_AS(base.slice(0, 0, 2, -1), tg::ValueError);
  CHECK_THROWS_AS(base.slice(2), tg::IndexError);

  Tensor n = base.narrow(1, 1, 3);
  check_shares_storage(n, base);
  CHECK(vec(n.sizes()) == Ints{4, 3});
  CHECK(n.storage_offset() == 1);
  CHECK(elements(tg::narrow(base, 0, -1, 1)) == Values{15, 16, 17, 18, 19});
  CHECK(contains(thrown<tg::Error>([&] { base.narrow(1, 3, 3); }), "exceeds dimension size (5)"));
  CHECK_THROWS_AS(base.narrow(1, 6, 0), tg::IndexError);
  CHECK_THROWS_AS(base.narrow(1, 0, -1), tg::ValueError);
}

TEST_CASE("ops_views: expand and expand_as") {
  Tensor column = iota({3, 1});
  Tensor e = column.expand({3, 4});
  check_shares_storage(e, column);
  CHECK(vec(e.sizes()) == Ints{3, 4});
  CHECK(vec(e.strides()) == Ints{1, 0});
  CHECK(elements(e.select(0, 2)) == Values{2, 2, 2, 2});

  Tensor lead = column.expand({2, 3, 4});
  CHECK(vec(lead.sizes()) == Ints{2, 3, 4});
  CHECK(lead.stride(0) == 0);
  CHECK(vec(column.expand({-1, 2}).sizes()) == Ints{3, 2});
  CHECK(vec(column.expand_as(iota({5, 3, 2})).sizes()) == Ints{5, 3, 2});
  CHECK(vec(iota({1}).view({}).expand({2, 2}).strides()) == Ints{0, 0});

  std::string message = thrown<tg::Error>([&] { column.expand({4, 4}); });
  CHECK(contains(message, "the expanded size of the tensor (4) must match the existing size (3) at non-singleton "
                          "dimension 0"));
  CHECK(contains(message, "Target sizes: [4, 4].  Tensor sizes: [3, 1]"));
  CHECK(contains(thrown<tg::Error>([&] { column.expand({-1, 3, 4}); }), "leading, non-existing dimension 0"));
  CHECK(contains(thrown<tg::Error>([&] { column.expand({3}); }), "must be greater or equal to the number of dim"));

  // Expanded tensors become real ones with contiguous().
  Tensor dense = e.contiguous();
  CHECK(dense.is_contiguous());
  CHECK_FALSE(dense.is_alias_of(column));
  CHECK(vec(dense.strides()) == Ints{4, 1});
  CHECK(elements(dense) == Values{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2});
}

TEST_CASE("ops_views: squeeze and unsqueeze") {
  Tensor base = iota({1, 3, 1, 2});
  Tensor all = base.squeeze();
  check_shares_storage(all, base);
  CHECK(vec(all.sizes()) == Ints{3, 2});
  CHECK(vec(all.strides()) == Ints{2, 1});
  CHECK(vec(base.squeeze(0).sizes()) == Ints{3, 1, 2});
  CHECK(vec(tg::squeeze(base, -2).sizes()) == Ints{1, 3, 2});
  CHECK(vec(base.squeeze(1).sizes()) == Ints{1, 3, 1, 2});  // size 3: left alone
  CHECK_THROWS_AS(base.squeeze(4), tg::IndexError);
  CHECK(iota({1}).squeeze().dim() == 0);

  Tensor m = iota({3, 4});
  Tensor u = m.unsqueeze(0);
  check_shares_storage(u, m);
  CHECK(vec(u.sizes()) == Ints{1, 3, 4});
  CHECK(vec(u.strides()) == Ints{12, 4, 1});
  CHECK(vec(m.unsqueeze(1).strides()) == Ints{4, 4, 1});
  CHECK(vec(m.unsqueeze(-1).sizes()) == Ints{3, 4, 1});
  CHECK(vec(m.unsqueeze(-1).strides()) == Ints{4, 1, 1});
  CHECK(contains(thrown<tg::IndexError>([&] { m.unsqueeze(3); }), "[-3, 2]"));
  CHECK(vec(iota({1}).view({}).unsqueeze(0).sizes()) == Ints{1});
}

TEST_CASE("ops_views: flatten") {
  Tensor base = iota({2, 3, 4});
  Tensor flat = base.flatten();
  check_shares_storage(flat, base);
  CHECK(vec(flat.sizes()) == Ints{24});
  CHECK(vec(base.flatten(1).sizes()) == Ints{2, 12});
  CHECK(vec(tg::flatten(base, 0, 1).sizes()) == Ints{6, 4});
  CHECK(vec(base.flatten(-2, -1).sizes()) == Ints{2, 12});
  CHECK(base.flatten(1, 1).sizes() == base.sizes());
  CHECK(vec(iota({1}).view({}).flatten().sizes()) == Ints{1});
  CHECK(contains(thrown<tg::Error>([&] { base.flatten(2, 1); }), "start_dim cannot come after end_dim"));
  CHECK_THROWS_AS(base.flatten(0, 3), tg::IndexError);

  Tensor copied = base.transpose(0, 1).flatten();
  CHECK_FALSE(copied.is_alias_of(base));
  CHECK(elements(copied) == elements(base.transpose(0, 1)));
}

TEST_CASE("ops_views: contiguity and contiguous()") {
  Tensor base = iota({3, 4});
  CHECK(base.is_contiguous());
  CHECK(base.contiguous().is_same(base));
  CHECK(base.select(1, 0).is_contiguous() == false);
  CHECK(base.select(0, 1).is_contiguous());
  CHECK(base.unsqueeze(1).is_contiguous());

  Tensor t = base.t();
  CHECK_FALSE(t.is_contiguous());
  Tensor c = t.contiguous();
  CHECK(c.is_contiguous());
  CHECK_FALSE(c.is_alias_of(base));
  CHECK(vec(c.sizes()) == Ints{4, 3});
  CHECK(elements(c) == elements(t));
  CHECK_THROWS_AS(t.contiguous(tg::MemoryFormat::Preserve), tg::ValueError);
}

TEST_CASE("ops_views: writes through a strided view reach the base") {
  Tensor base = iota({3, 4});
  const uint32_t version = base._version();
  Tensor column = base.select(1, 2);
  column.fill_(-1);
  CHECK(base._version() > version);  // an in-place write through a view bumps the shared counter
  CHECK(column._version() == base._version());
  CHECK(elements(base) == Values{0, 1, -1, 3, 4, 5, -1, 7, 8, 9, -1, 11});
  base.slice(0, 0, 2).slice(1, 0, 2).zero_();
  CHECK(elements(base.view({-1}).slice(0, 0, 6)) == Values{0, 0, -1, 3, 0, 0});
  base.t().select(0, 3).copy_(tg::tensor({7.0f, 8.0f, 9.0f}));
  CHECK(elements(base.select(1, 3)) == Values{7, 8, 9});
}

TEST_CASE("ops_views: a view keeps its base's dispatch keys") {
  // A tensor whose backend key is PrivateUse1 (an out-of-tree device) stays one through views,
  // as a CUDA tensor stays CUDA: the composite view kernels serve every backend key.
  Tensor base = iota({2, 3});
  base.unsafeGetTensorImpl()->remove_key(tg::DispatchKey::CPU);
  base.unsafeGetTensorImpl()->add_key(tg::DispatchKey::PrivateUse1);
  for (const Tensor& v : {base.view({3, 2}), base.t(), base.select(0, 1), base.unsqueeze(0), base.expand({4, 2, 3}),
                          base.slice(1, 1), base.permute({1, 0})}) {
    CHECK(v.key_set() == base.key_set());
    CHECK(v.key_set().has(tg::DispatchKey::PrivateUse1));
    CHECK_FALSE(v.key_set().has(tg::DispatchKey::CPU));
  }
}
