// LibTorch's indexing front end: t[i], t.index({...}), t.index_put_({...}, v), over views for
// basic entries and the index.Tensor / index_put_ operators for tensors (their CPU kernels; the
// CUDA kernels are checked against these by the conformance cpu_cuda check on a GPU).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include <tensorgen/tensorgen.h>

#include "autograd/gradcheck.h"
#include "functorch/transforms.h"

using tg::Tensor;
using tg::autograd::variable_list;
using namespace tg::indexing;

namespace {

Tensor cube() { return tg::arange(24, tg::kFloat).view({2, 3, 4}); }
float at(const Tensor& t, std::initializer_list<int64_t> position) {
  Tensor v = t;
  for (int64_t i : position) v = v.select(0, i);
  return v.item<float>();
}
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const tg::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("indexing: integers, slices, None, Ellipsis and bools give views") {
  Tensor t = cube();
  Tensor row = t[1];
  CHECK(row.sizes() == tg::IntArrayRef({3, 4}));
  CHECK(row.is_alias_of(t));
  CHECK(at(row, {2, 3}) == 23);
  CHECK(t[1][2][3].item<float>() == 23);

  Tensor column = t.index({Slice(), 0});
  CHECK(column.sizes() == tg::IntArrayRef({2, 4}));
  CHECK(column.is_alias_of(t));
  CHECK(at(column, {1, 2}) == 14);

  Tensor stepped = t.index({Slice(), Slice(None, None, 2), Slice(1, -1)});
  CHECK(stepped.sizes() == tg::IntArrayRef({2, 2, 2}));
  CHECK(at(stepped, {1, 1, 0}) == 21);  // t[1][2][1]

  CHECK(t.index({None, Ellipsis, 0}).sizes() == tg::IntArrayRef({1, 2, 3}));
  CHECK(t.index({"...", None}).sizes() == tg::IntArrayRef({2, 3, 4, 1}));
  CHECK(t.index({0, "...", 1}).sizes() == tg::IntArrayRef({3}));
  CHECK(t.index({true}).sizes() == tg::IntArrayRef({1, 2, 3, 4}));
  CHECK(t.index({false}).sizes() == tg::IntArrayRef({0, 2, 3, 4}));
  CHECK(t.index({Ellipsis}).is_alias_of(t));
  CHECK(t.index({-1, -1, -1}).item<float>() == 23);
}

TEST_CASE("indexing: integer tensors gather as LibTorch places the index dims") {
  Tensor t = cube();
  Tensor picked = t.index({Slice(), tg::tensor({2, 0})});
  CHECK(picked.sizes() == tg::IntArrayRef({2, 2, 4}));
  CHECK(tg::equal(picked, t.index_select(1, tg::tensor({2, 0}))));

  // Adjacent index tensors: the broadcast index shape replaces the indexed dims in place.
  Tensor adjacent = t.index({Slice(), tg::tensor({0, 2}), tg::tensor({{1}, {3}})});
  CHECK(adjacent.sizes() == tg::IntArrayRef({2, 2, 2}));
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t i = 0; i < 2; ++i) {
      for (int64_t j = 0; j < 2; ++j) {
        const int64_t rows[] = {0, 2};
        const int64_t cols[] = {1, 3};
        CHECK(at(adjacent, {b, i, j}) == at(t, {b, rows[j], cols[i]}));
      }
    }
  }
  // Separated index tensors: the index shape goes first.
  Tensor separated = t.index({tg::tensor({1, 0}), Slice(), tg::tensor({3, 2})});
  CHECK(separated.sizes() == tg::IntArrayRef({2, 3}));
  CHECK(at(separated, {0, 2}) == at(t, {1, 2, 3}));
  CHECK(at(separated, {1, 1}) == at(t, {0, 1, 2}));
  // Negative positions and int32 index tensors.
  CHECK(t.index({tg::tensor({-1}), 0, 0}).item<float>() == 12);
  CHECK(t.index({tg::tensor({1}, tg::kInt), 2, 3}).item<float>() == 23);
  // t[tensor] through operator[].
  CHECK(t[tg::tensor({1, 1})].sizes() == tg::IntArrayRef({2, 3, 4}));
}

TEST_CASE("indexing: bool masks select their true positions") {
  Tensor t = cube();
  Tensor selected = t.index({t > 17.5});
  CHECK(selected.sizes() == tg::IntArrayRef({6}));
  CHECK(tg::equal(selected, tg::arange(18, 24, tg::kFloat)));
  Tensor rows = t.index({Slice(), tg::tensor({true, false, true})});
  CHECK(rows.sizes() == tg::IntArrayRef({2, 2, 4}));
  CHECK(at(rows, {1, 1, 0}) == at(t, {1, 2, 0}));
}

TEST_CASE("indexing: index_put_ writes through views and tensors, accumulate adds repeats") {
  Tensor z = tg::zeros({3, 4});
  z.index_put_({Slice(), 1}, 5);
  z.index_put_({tg::tensor({0, 2}), 3}, tg::tensor({7.f, 8.f}));
  CHECK(at(z, {2, 1}) == 5);
  CHECK(at(z, {0, 3}) == 7);
  CHECK(at(z, {2, 3}) == 8);
  CHECK(at(z, {1, 3}) == 0);
  CHECK(z.sum().item<float>() == doctest::Approx(5 * 3 + 15));

  Tensor counts = tg::zeros({4});
  tg::index_put_(counts, {tg::tensor({1, 1, 3, 1})}, tg::ones({4}), /*accumulate=*/true);
  CHECK(tg::equal(counts, tg::tensor({0.f, 3.f, 0.f, 1.f})));

  Tensor x = tg::tensor({-1.f, 2.f, -3.f, 4.f});
  x.index_put_({x < 0}, 0);
  CHECK(tg::equal(x, tg::tensor({0.f, 2.f, 0.f, 4.f})));

  Tensor m = tg::zeros({2, 3});
  m.index_put_({Ellipsis}, tg::tensor({1.f, 2.f, 3.f}));  // broadcast into the whole tensor
  CHECK(m.sum().item<float>() == 12);
}

TEST_CASE("indexing: gradients of index and index_put match finite differences") {
  tg::manual_seed(3);
  Tensor self = tg::randn({4, 3, 2}, tg::kDouble).requires_grad_();
  Tensor values = tg::randn({2, 3}, tg::kDouble).requires_grad_();
  const Tensor rows = tg::tensor({3, 0, 3});
  auto gather = [&](const variable_list& in) { return variable_list{in[0].index({rows, Slice(), 1})}; };
  CHECK(tg::autograd::gradcheck(gather, {self}).ok);
  auto put = [](const variable_list& in) {
    return variable_list{tg::index_put(in[0], {tg::tensor({1, 1}), std::nullopt, tg::tensor({0, 1})}, in[1], true)};
  };
  CHECK(tg::autograd::gradcheck(put, {self, values}).ok);
  auto overwrite = [](const variable_list& in) {
    return variable_list{tg::index_put(in[0], {tg::tensor({0, 2})}, in[1].sum(), false)};
  };
  CHECK(tg::autograd::gradcheck(overwrite, {self, values}).ok);
}

TEST_CASE("indexing: bad indices are clear errors") {
  Tensor t = cube();
  CHECK(message_of([&] { t.index({tg::tensor({5})}); }).find("index 5 is out of bounds for dimension 0 with size 2") !=
        std::string::npos);
  CHECK(message_of([&] { t.index({0, 0, 0, 0}); }).find("too many indices for tensor of dimension 3") !=
        std::string::npos);
  CHECK(message_of([&] { t.index({tg::tensor({0.5f})}); })
            .find("tensors used as indices must be long, int, byte or bool tensors") != std::string::npos);
  CHECK(message_of([&] { t.index({Slice(0, 2, 0)}); }).find("slice step cannot be zero") != std::string::npos);
  CHECK(message_of([&] { t.index({Ellipsis, Ellipsis}); }).find("single ellipsis") != std::string::npos);
  CHECK(message_of([&] { t.index({"..."}).index({"..x"}); }).find("Expected \"...\"") != std::string::npos);
  CHECK(message_of([&] { t.index({tg::ones({3}, tg::kBool)}); }).find("The shape of the mask") != std::string::npos);
  CHECK_THROWS_AS(t[7], tg::IndexError);
  Tensor z = tg::zeros({3});
  CHECK(message_of([&] { z.index_put_({tg::tensor({0})}, tg::ones({1}, tg::kDouble)); })
            .find("Index put requires the source and destination dtypes match") != std::string::npos);
}

TEST_CASE("indexing: index and index_put_ are operators of their own, with their own backward node") {
  Tensor x = tg::arange(6, tg::kDouble).requires_grad_();
  Tensor picked = x.index({tg::tensor({0, 0, 5})});
  REQUIRE(picked.grad_fn());
  CHECK(picked.grad_fn()->name() == "IndexBackward0");
  picked.sum().backward();  // index's backward is index_put with accumulate: repeats add up
  CHECK(tg::equal(x.grad(), tg::tensor({2., 0., 0., 0., 0., 1.})));

  Tensor base = tg::zeros({3}, tg::kDouble);
  Tensor values = tg::ones({2}, tg::kDouble).requires_grad_();
  Tensor written = tg::index_put(base, {tg::tensor({2, 0})}, values * 3);
  CHECK(written.grad_fn()->name().find("IndexPut") != std::string::npos);
  CHECK(tg::equal(written, tg::tensor({3., 0., 3.})));
  CHECK(tg::equal(base, tg::zeros({3}, tg::kDouble)));  // the functional form leaves self alone
}

TEST_CASE("indexing: the kernel places the index dims, wraps negatives and reads strided self") {
  Tensor x = tg::arange(120, tg::kFloat).view({2, 3, 4, 5});
  const Tensor a = tg::tensor({1, 0}), b = tg::tensor({-1, 2});
  // Non-adjacent index dims (0 and 2): the broadcast dim goes in front, LibTorch's rule.
  Tensor front = x.index({a, Slice(), b});
  REQUIRE(front.sizes() == tg::IntArrayRef({2, 3, 5}));
  CHECK(at(front, {0, 2, 4}) == at(x, {1, 2, 3, 4}));
  CHECK(at(front, {1, 1, 3}) == at(x, {0, 1, 2, 3}));
  // Adjacent ones (1 and 2) stay where they were.
  Tensor middle = x.index({Slice(), a.view({2, 1}), b});  // broadcast to [2, 2]
  REQUIRE(middle.sizes() == tg::IntArrayRef({2, 2, 2, 5}));
  CHECK(at(middle, {1, 0, 1, 4}) == at(x, {1, 1, 2, 4}));
  CHECK(at(middle, {0, 1, 0, 2}) == at(x, {0, 0, 3, 2}));
  // A transposed (non-contiguous) self reads through its strides.
  Tensor t = x.transpose(0, 3);  // [5, 3, 4, 2]
  Tensor g = t.index({tg::tensor({4, 0}), Slice(), tg::tensor({3})});
  REQUIRE(g.sizes() == tg::IntArrayRef({2, 3, 2}));
  CHECK(at(g, {0, 2, 1}) == at(x, {1, 2, 3, 4}));
  // int32 indices and a 0-dim result.
  CHECK(tg::index(x, {tg::tensor({1}).to(tg::kInt).view({}), tg::tensor({2}).view({}), tg::tensor({3}).view({}),
                      tg::tensor({4}).view({})})
            .item<float>() == at(x, {1, 2, 3, 4}));
  // index.Tensor_out
  Tensor out = tg::empty({0});
  tg::index_out(out, x, {a});
  CHECK(tg::equal(out, x.index_select(0, a)));
}

TEST_CASE("indexing: index_put_ with repeated positions: accumulate sums, otherwise the last write stays") {
  Tensor sums = tg::zeros({4});
  tg::index_put_(sums, {tg::tensor({3, 1, 3, 3})}, tg::tensor({1.f, 2.f, 4.f, 8.f}), /*accumulate=*/true);
  CHECK(tg::equal(sums, tg::tensor({0.f, 2.f, 0.f, 13.f})));
  Tensor last = tg::zeros({4});
  tg::index_put_(last, {tg::tensor({3, 1, 3, 3})}, tg::tensor({1.f, 2.f, 4.f, 8.f}), /*accumulate=*/false);
  CHECK(tg::equal(last, tg::tensor({0.f, 2.f, 0.f, 8.f})));  // row-major order of the result: 8 comes last
  // Into a strided view, values broadcast, and an integer dtype accumulating exactly.
  Tensor m = tg::zeros({3, 4}, tg::kLong);
  Tensor column = m.select(1, 2);
  tg::index_put_(column, {tg::tensor({0, 2, 0})}, tg::tensor({5}, tg::kLong), true);
  CHECK(tg::equal(m.select(1, 2), tg::tensor({10, 0, 5}, tg::kLong)));
  CHECK(m.sum().item<int64_t>() == 15);
  // values that overlap self are refused, as in LibTorch (the writes would change what is read).
  Tensor r = tg::arange(4, tg::kFloat);
  CHECK(message_of([&] { r.index_put_({tg::tensor({1, 2, 3})}, r.narrow(0, 0, 3)); })
            .find("[index_put_] unsupported operation: some elements of the input tensor and the written-to tensor "
                  "refer to a single memory location") != std::string::npos);
  r.index_put_({tg::tensor({1, 2, 3})}, r.narrow(0, 0, 3).clone());
  CHECK(tg::equal(r, tg::tensor({0.f, 0.f, 1.f, 2.f})));
}

TEST_CASE("indexing: index_put_ checks every index before it writes anything") {
  Tensor z = tg::zeros({2, 3});
  CHECK(message_of([&] { tg::index_put_(z, {tg::tensor({0, 1}), tg::tensor({1, -4})}, tg::ones({1})); })
            .find("[index_put_] index -4 is out of bounds for dimension 1 with size 3") != std::string::npos);
  CHECK(tg::equal(z, tg::zeros({2, 3})));
  CHECK(message_of([&] { tg::index_put_(z, {tg::tensor({0, 1})}, tg::ones({2, 2})); })
            .find("shape mismatch: value tensor of shape [2, 2] cannot be broadcast to indexing result of shape [2, 3]") !=
        std::string::npos);
  CHECK(message_of([&] { tg::index(z, {std::nullopt, std::nullopt}); }).find("at least one defined index tensor") !=
        std::string::npos);
  CHECK(message_of([&] { tg::index(z, {tg::tensor({-3})}); })
            .find("[index] index -3 is out of bounds for dimension 0 with size 2") != std::string::npos);
}

TEST_CASE("indexing: vmap of index and index_put_ runs its batching rule, per-sample indices too") {
  tg::func::reset_vmap_fallbacks();
  const Tensor xs = tg::randn({3, 4, 5});
  const Tensor rows = tg::tensor({{0, 3}, {1, 1}, {2, 0}});  // one index per sample
  auto gather = [](const Tensor& x, const Tensor& i) { return x.index({Slice(), i}); };  // [4, 2] per sample
  const Tensor batched = tg::func::vmap(gather)(xs, rows);
  REQUIRE(batched.sizes() == tg::IntArrayRef({3, 4, 2}));
  for (int64_t n = 0; n < 3; ++n) CHECK(tg::equal(batched.select(0, n), gather(xs.select(0, n), rows.select(0, n))));
  auto put = [](const Tensor& x, const Tensor& i) { return tg::index_put(x, {std::nullopt, i}, tg::ones({1}), true); };
  const Tensor written = tg::func::vmap(put)(xs, rows);
  for (int64_t n = 0; n < 3; ++n) CHECK(tg::equal(written.select(0, n), put(xs.select(0, n), rows.select(0, n))));
  auto shared = [&](const Tensor& x) { return x.index({tg::tensor({2, 0}), Slice(), tg::tensor({1})}); };
  const Tensor same_rows = tg::func::vmap(shared)(xs.view({3, 1, 4, 5}).expand({3, 3, 4, 5}).contiguous());
  CHECK(same_rows.sizes() == tg::IntArrayRef({3, 2, 4}));
  CHECK(tg::func::vmap_fallback_count() == 0);
}
