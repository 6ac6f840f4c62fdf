// Tests of the CPU kernels behind the factories: empty, copy_ (dtype conversion,
// broadcasting, any strides, overlapping memory), fill_ (overflow checks), arange (PyTorch's
// size rule) and the random fills uniform_/normal_ with the seeded Generator.
#include <cmath>
#include <thread>

#include "core/generator.h"
#include "ops_test_helpers.h"

using namespace ops_test;
using tg::Tensor;

TEST_CASE("ops_copy_fill_random: empty") {
  const Tensor e = tg::empty({2, 3});
  CHECK(shape(e) == Ints{2, 3});
  CHECK(e.scalar_type() == tg::default_dtype());
  CHECK(e.is_contiguous());
  CHECK(tg::empty({4}, tg::kChar).scalar_type() == tg::kChar);
  CHECK(shape(tg::empty({0, 5})) == Ints{0, 5});
  const std::string message = thrown<tg::ValueError>([] { tg::empty({2, -1}); });
  CHECK(contains(message, "[empty]"));
  CHECK(contains(message, "-1"));
}

TEST_CASE("ops_copy_fill_random: copy_ converts, broadcasts and follows strides") {
  Tensor ints = tg::empty({3}, tg::kInt);
  ints.copy_(make({1.5, -2.7, 3.99}, {3}));
  CHECK(values(ints) == Values{1, -2, 3});  // truncation, as a C++ cast
  Tensor bools = tg::empty({3}, tg::kBool);
  bools.copy_(make({0, 0.5, -2}, {3}));
  CHECK(values(bools) == Values{0, 1, 1});
  Tensor halves = tg::empty({2}, tg::kHalf);
  halves.copy_(make({1.0009765625, 65504}, {2}, tg::kDouble));
  CHECK(values(halves) == Values{1.0009765625, 65504});

  Tensor rows = tg::empty({2, 3});
  rows.copy_(make({1, 2, 3}, {3}, tg::kLong));
  CHECK(values(rows) == Values{1, 2, 3, 1, 2, 3});

  Tensor column_out = column_major(tg::zeros({2, 3}));
  column_out.copy_(make({1, 2, 3, 4, 5, 6}, {2, 3}, tg::kDouble));
  CHECK(values(column_out) == Values{1, 2, 3, 4, 5, 6});
  CHECK(column_out.strides().vec() == Ints{1, 2});

  CHECK(contains(thrown<tg::ValueError>([] { tg::empty({2, 2}).copy_(make({1, 2, 3}, {3})); }), "[copy_]"));
  CHECK(contains(thrown<tg::ValueError>([] { make({1}, {1}).expand({3}).copy_(make({1, 2, 3}, {3})); }),
                 "more than one element of the written-to tensor"));
}

TEST_CASE("ops_copy_fill_random: copy_ between overlapping views") {
  // A partial overlap is refused, as LibTorch refuses it (docs/reliability.md); the tensors
  // keep their values.
  const char* partial = "some elements of the input tensor and the written-to tensor refer to a single memory location";
  Tensor x = make({0, 1, 2, 3, 4, 5}, {6});
  CHECK(contains(thrown<tg::Error>([&] { x.slice(0, 1, 6).copy_(x.slice(0, 0, 5)); }), partial));
  CHECK(values(x) == Values{0, 1, 2, 3, 4, 5});
  Tensor square = make({1, 2, 3, 4}, {2, 2});
  CHECK(contains(thrown<tg::Error>([&] { square.copy_(square.transpose(0, 1)); }), partial));
  CHECK(values(square) == Values{1, 2, 3, 4});
  // Disjoint views of one storage are fine.
  Tensor y = make({0, 1, 2, 3, 4, 5}, {6});
  y.slice(0, 0, 3).copy_(y.slice(0, 3, 6));
  CHECK(values(y) == Values{3, 4, 5, 3, 4, 5});
  Tensor same = make({1, 2}, {2});
  same.copy_(same);
  CHECK(values(same) == Values{1, 2});
}

TEST_CASE("ops_copy_fill_random: small and large elementwise ops agree on overlapping views") {
  // Outputs of up to 16 elements take the kernels' tiny path (cpu::detail::elementwise_tiny);
  // 40 elements take the general one. Both: a partial overlap is refused before any kernel
  // runs (as in LibTorch), the very same elements in place are read before being written.
  for (int64_t n : {6, 40}) {
    CAPTURE(n);
    Tensor x = tg::arange(n, tg::kFloat);
    const Values before = values(x);
    CHECK(contains(thrown<tg::Error>([&] { x.slice(0, 1, n).add_(x.slice(0, 0, n - 1)); }), "single memory location"));
    CHECK(values(x) == before);
    Values expected(static_cast<size_t>(n));
    Tensor y = tg::arange(n, tg::kFloat);
    y.add_(y);  // the very same elements: in place
    for (int64_t i = 0; i < n; ++i) expected[static_cast<size_t>(i)] = 2.0 * static_cast<double>(i);
    CHECK(values(y) == expected);
    Tensor z = tg::arange(n, tg::kFloat);
    Tensor sum = tg::add(z.slice(0, 1, n), z.slice(0, 0, n - 1));  // a new output
    Values sums;
    for (int64_t i = 1; i < n; ++i) sums.push_back(2.0 * static_cast<double>(i) - 1.0);
    CHECK(values(sum) == sums);
  }
}

TEST_CASE("ops_copy_fill_random: fill_") {
  for (tg::ScalarType dtype : kAllDtypes) {
    CAPTURE(dtype);
    Tensor t = tg::empty({2, 2}, dtype);
    t.fill_(1);
    CHECK(values(t) == Values{1, 1, 1, 1});
  }
  Tensor strided = column_major(tg::zeros({2, 3}));
  tg::fill_(strided, 2.5);
  CHECK(values(strided) == Values(6, 2.5));
  CHECK(thrown<tg::ValueError>([] { tg::empty({1}, tg::kChar).fill_(300); }) ==
        "[fill_] value 300 cannot be converted to type int8 without overflow");
  CHECK(contains(thrown<tg::ValueError>([] { tg::empty({1}, tg::kHalf).fill_(1e6); }), "without overflow"));
  CHECK(contains(thrown<tg::ValueError>([] { tg::empty({1}, tg::kLong).fill_(NAN); }), "without overflow"));
  Tensor bytes = tg::empty({1}, tg::kByte);
  bytes.fill_(-1);  // an unsigned type takes the negative values of its width, as in PyTorch
  CHECK(values(bytes) == Values{255});
  Tensor floats = tg::empty({1});
  floats.fill_(INFINITY);
  CHECK(std::isinf(values(floats)[0]));
}

TEST_CASE("ops_copy_fill_random: arange") {
  const Tensor r = tg::arange(5);
  CHECK(r.scalar_type() == tg::kLong);
  CHECK(values(r) == Values{0, 1, 2, 3, 4});
  const Tensor f = tg::arange(0, 1, 0.25);
  CHECK(f.scalar_type() == tg::kFloat);
  CHECK(values(f) == Values{0, 0.25, 0.5, 0.75});
  CHECK(values(tg::arange(10, 0, -3)) == Values{10, 7, 4, 1});
  CHECK(values(tg::arange(1, 2.5, 0.5)) == Values{1, 1.5, 2});
  CHECK(shape(tg::arange(3, 3, 1)) == Ints{0});
  CHECK(values(tg::arange(0, 5, 2, tg::kHalf)) == Values{0, 2, 4});
  CHECK(thrown<tg::ValueError>([] { tg::arange(0, 1, tg::Scalar(0)); }) == "[arange] step must be nonzero");
  CHECK(contains(thrown<tg::ValueError>([] { tg::arange(0, -1, 1); }), "inconsistent with step sign"));
  CHECK(contains(thrown<tg::NotImplementedError>([] { tg::arange(3, tg::kBool); }), "[arange] not implemented for 'bool'; supported: "));

  Tensor out = tg::empty({0}, tg::kDouble);
  tg::arange_out(out, 1, 2, 0.25);
  CHECK(values(out) == Values{1, 1.25, 1.5, 1.75});
  Tensor ints = tg::empty({0}, tg::kInt);
  tg::arange_out(ints, -3, 3, 2);
  CHECK(values(ints) == Values{-3, -1, 1});
}

TEST_CASE("ops_copy_fill_random: seeded uniform and normal fills") {
  tg::manual_seed(42);
  const Tensor a = tg::rand({1000});
  tg::manual_seed(42);
  const Tensor b = tg::rand({1000});
  CHECK(values(a) == values(b));
  double sum = 0;
  for (double v : values(a)) {
    CHECK(v >= 0);
    CHECK(v < 1);
    sum += v;
  }
  CHECK(sum / 1000 == doctest::Approx(0.5).epsilon(0.05));
  CHECK(values(tg::rand({1000})) != values(a));

  tg::manual_seed(7);
  const Values normal = values(tg::randn({20000}, tg::kDouble));
  double mean = 0, square = 0;
  for (double v : normal) mean += v;
  mean /= static_cast<double>(normal.size());
  for (double v : normal) square += (v - mean) * (v - mean);
  const double std_dev = std::sqrt(square / static_cast<double>(normal.size()));
  CHECK(std::fabs(mean) < 0.03);
  CHECK(std_dev == doctest::Approx(1.0).epsilon(0.03));

  Tensor strided = column_major(tg::zeros({3, 4}, tg::kDouble));
  strided.uniform_(2, 3);
  for (double v : values(strided)) CHECK((v >= 2 && v < 3));
  Tensor shifted = tg::empty({1000}, tg::kHalf);
  shifted.normal_(10, 0.5);
  for (double v : values(shifted)) CHECK((v > 7 && v < 13));

  CHECK(contains(thrown<tg::ValueError>([] { tg::empty({2}).uniform_(3, 2); }), "from=3 > to=2"));
  CHECK(contains(thrown<tg::ValueError>([] { tg::empty({2}).normal_(0, -1); }), "std >= 0.0"));
  CHECK(thrown<tg::NotImplementedError>([] { tg::empty({2}, tg::kLong).uniform_(); }) ==
        "[uniform_] not implemented for 'int64'; supported: float16, float32, float64, bfloat16");
}

TEST_CASE("ops_copy_fill_random: Generator") {
  tg::Generator g(5);
  CHECK(g.initial_seed() == 5);
  tg::Generator same(5);
  uint64_t first = 0;
  {
    auto guard = g.lock();
    first = g.engine().next_u64();
  }
  auto guard = same.lock();
  CHECK(same.engine().next_u64() == first);
  guard.unlock();
  tg::Generator alias = g;  // copies share the state
  alias.manual_seed(9);
  CHECK(g.initial_seed() == 9);
  CHECK(alias == g);
  CHECK_FALSE(alias == same);

  // Concurrent fills each take a contiguous stretch of one sequence: no value is drawn twice.
  tg::manual_seed(1);
  Tensor x = tg::empty({4096}, tg::kDouble), y = tg::empty({4096}, tg::kDouble);
  std::thread tx([&] { x.uniform_(); });
  std::thread ty([&] { y.uniform_(); });
  tx.join();
  ty.join();
  tg::manual_seed(1);
  const Values sequence = values(tg::rand({8192}, tg::kDouble));
  const Values xs = values(x), ys = values(y);
  const bool x_first = xs[0] == sequence[0];
  CHECK(Values(sequence.begin() + (x_first ? 0 : 4096), sequence.begin() + (x_first ? 4096 : 8192)) == xs);
  CHECK(Values(sequence.begin() + (x_first ? 4096 : 0), sequence.begin() + (x_first ? 8192 : 4096)) == ys);
}
