// Tests for the factories (kernels/composite/factories.cpp): shapes, the dtype PyTorch would
// pick, values, the *_like variants, random factories (range, reproducibility after
// manual_seed, moments), and the errors for bad sizes, layouts and devices.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include <tensorgen/tensorgen.h>

#include "ops_test_helpers.h"

namespace {

using tg::Tensor;
using tg::TensorOptions;

using ops_test::contains;
using ops_test::elements;
using ops_test::vec;
using ops_test::Ints;
using ops_test::thrown;
using ops_test::Values;

bool all_equal(const Tensor& t, double value) {
  for (double v : elements(t)) {
    if (v != value) return false;
  }
  return true;
}

// Whether this build has CUDA kernels for tg::empty (the CUDA-device checks then differ).
bool has_cuda_backend() {
  return tg::Dispatcher::singleton().findSchemaOrThrow("tg::empty.memory_format").hasKernelForDispatchKey(
      tg::DispatchKey::CUDA);
}

}  // namespace

TEST_CASE("ops_factory: empty, zeros, ones and full give the shape and dtype asked for") {
  Tensor e = tg::empty({2, 3});
  CHECK(vec(e.sizes()) == Ints{2, 3});
  CHECK(e.scalar_type() == tg::kFloat);
  CHECK(e.is_contiguous());
  CHECK(e.is_cpu());

  Tensor z = tg::zeros({2, 3});
  CHECK(vec(z.sizes()) == Ints{2, 3});
  CHECK(z.scalar_type() == tg::kFloat);
  CHECK(all_equal(z, 0));
  CHECK(tg::zeros({2, 3}, tg::kInt64).scalar_type() == tg::kLong);
  CHECK(tg::zeros({4}, TensorOptions().dtype(tg::kDouble)).scalar_type() == tg::kDouble);
  CHECK(tg::zeros({}).dim() == 0);
  CHECK(tg::zeros({3, 0}).numel() == 0);

  Tensor o = tg::ones({3}, tg::kInt32);
  CHECK(o.scalar_type() == tg::kInt);
  CHECK(elements(o) == Values{1, 1, 1});
  CHECK(all_equal(tg::ones({2, 2}, tg::kBool), 1));
  CHECK(all_equal(tg::ones({2, 2}, TensorOptions(tg::kHalf)), 1));
}

TEST_CASE("ops_factory: full takes its dtype from the fill value unless one is given") {
  Tensor i = tg::full({2, 2}, 7);
  CHECK(i.scalar_type() == tg::kLong);
  CHECK(all_equal(i, 7));
  Tensor f = tg::full({3}, 2.5);
  CHECK(f.scalar_type() == tg::kFloat);
  CHECK(all_equal(f, 2.5));
  Tensor b = tg::full({2}, true);
  CHECK(b.scalar_type() == tg::kBool);
  CHECK(all_equal(b, 1));
  Tensor d = tg::full({2}, 3, tg::kDouble);
  CHECK(d.scalar_type() == tg::kDouble);
  CHECK(all_equal(d, 3));
  CHECK(all_equal(tg::full({2}, -1.75, tg::kBFloat16), -1.75));

  tg::set_default_dtype(tg::kDouble);
  CHECK(tg::full({1}, 0.5).scalar_type() == tg::kDouble);
  CHECK(tg::zeros({1}).scalar_type() == tg::kDouble);
  tg::set_default_dtype(tg::kFloat);
}

TEST_CASE("ops_factory: arange sizes, values and dtypes") {
  Tensor a = tg::arange(5);
  CHECK(a.scalar_type() == tg::kLong);
  CHECK(elements(a) == Values{0, 1, 2, 3, 4});
  CHECK(elements(tg::arange(2, 6)) == Values{2, 3, 4, 5});
  CHECK(elements(tg::arange(2, 6, TensorOptions())) == Values{2, 3, 4, 5});
  CHECK(elements(tg::arange(2, 6, 1)) == Values{2, 3, 4, 5});
  CHECK(elements(tg::arange(0, 10, 3)) == Values{0, 3, 6, 9});
  CHECK(elements(tg::arange(10, 0, -3)) == Values{10, 7, 4, 1});
  CHECK(tg::arange(0).numel() == 0);

  Tensor f = tg::arange(0, 1, 0.25);
  CHECK(f.scalar_type() == tg::kFloat);
  CHECK(elements(f) == Values{0, 0.25, 0.5, 0.75});
  CHECK(tg::arange(2.5).scalar_type() == tg::kFloat);
  CHECK(elements(tg::arange(2.5)) == Values{0, 1, 2});
  CHECK(tg::arange(0, 1, 0.1).numel() == 10);
  CHECK(tg::arange(1.0, 4.0, TensorOptions()).numel() == 3);

  Tensor d = tg::arange(4, tg::kDouble);
  CHECK(d.scalar_type() == tg::kDouble);
  CHECK(elements(d) == Values{0, 1, 2, 3});
  CHECK(tg::arange(0, 3, 1, TensorOptions().dtype(tg::kInt32)).scalar_type() == tg::kInt);

  CHECK_THROWS_AS(tg::arange(0, 5, tg::Scalar(0)), tg::Error);
  CHECK_THROWS_AS(tg::arange(5, 0, 1), tg::Error);
}

TEST_CASE("ops_factory: rand is uniform in [0, 1) and reproducible after manual_seed") {
  tg::manual_seed(42);
  Tensor a = tg::rand({1000});
  CHECK(a.scalar_type() == tg::kFloat);
  CHECK(vec(a.sizes()) == Ints{1000});
  const std::vector<double> values = elements(a);
  CHECK(*std::min_element(values.begin(), values.end()) >= 0.0);
  CHECK(*std::max_element(values.begin(), values.end()) < 1.0);
  CHECK(std::accumulate(values.begin(), values.end(), 0.0) / 1000 == doctest::Approx(0.5).epsilon(0.1));

  tg::manual_seed(42);
  CHECK(elements(tg::rand({1000})) == elements(a));
  CHECK(elements(tg::rand({1000})) != elements(a));

  Tensor d = tg::rand({2, 3}, tg::kDouble);
  CHECK(d.scalar_type() == tg::kDouble);
  CHECK(vec(d.sizes()) == Ints{2, 3});
}

TEST_CASE("ops_factory: randn has mean 0 and standard deviation 1") {
  tg::manual_seed(7);
  Tensor r = tg::randn({10000});
  CHECK(r.scalar_type() == tg::kFloat);
  std::vector<double> v = elements(r);
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  const double std = std::sqrt(var / static_cast<double>(v.size() - 1));
  CHECK(std::fabs(mean) < 0.05);
  CHECK(std::fabs(std - 1.0) < 0.05);

  tg::manual_seed(7);
  CHECK(elements(tg::randn({10000})) == v);
  CHECK(tg::randn({3}, tg::kDouble).scalar_type() == tg::kDouble);
}

TEST_CASE("ops_factory: *_like factories take self's shape, dtype and device") {
  Tensor src = tg::ones({2, 3}, tg::kDouble);
  Tensor z = tg::zeros_like(src);
  CHECK(vec(z.sizes()) == Ints{2, 3});
  CHECK(z.scalar_type() == tg::kDouble);
  CHECK(z.device() == src.device());
  CHECK(all_equal(z, 0));
  CHECK_FALSE(z.is_alias_of(src));

  CHECK(tg::zeros_like(src, tg::kInt64).scalar_type() == tg::kLong);
  Tensor o = tg::ones_like(tg::zeros({4}, tg::kInt32));
  CHECK(o.scalar_type() == tg::kInt);
  CHECK(all_equal(o, 1));
  Tensor f = tg::full_like(src, 3.5);
  CHECK(f.scalar_type() == tg::kDouble);
  CHECK(all_equal(f, 3.5));
  CHECK(all_equal(tg::full_like(tg::zeros({2}, tg::kLong), 3.9), 3));  // cast to self's dtype

  // empty_like of a non-contiguous tensor is contiguous with the same sizes.
  Tensor t = tg::empty({3, 4}).t();
  Tensor e = tg::empty_like(t);
  CHECK(vec(e.sizes()) == Ints{4, 3});
  CHECK(e.is_contiguous());
  CHECK(tg::empty_like(t, TensorOptions().dtype(tg::kBool)).scalar_type() == tg::kBool);

  tg::manual_seed(3);
  Tensor r = tg::rand_like(src);
  CHECK(r.scalar_type() == tg::kDouble);
  CHECK(vec(r.sizes()) == Ints{2, 3});
  const std::vector<double> values = elements(r);
  CHECK(std::all_of(values.begin(), values.end(), [](double v) { return v >= 0 && v < 1; }));
  Tensor n = tg::randn_like(src, tg::kFloat);
  CHECK(n.scalar_type() == tg::kFloat);
  CHECK(vec(n.sizes()) == Ints{2, 3});
}

TEST_CASE("ops_factory: zero_ and fill_ write in place and return self") {
  Tensor t = tg::ones({2, 3});
  const Tensor& same = t.zero_();
  CHECK(same.is_same(t));
  CHECK(all_equal(t, 0));
  tg::fill_(t, 4);
  CHECK(all_equal(t, 4));
  Tensor zeroed = tg::zero_(t);
  CHECK(zeroed.is_same(t));
  CHECK(all_equal(t, 0));
}

TEST_CASE("ops_factory: negative sizes are a ValueError") {
  CHECK(contains(thrown<tg::ValueError>([] { tg::zeros({2, -1}); }), "non-negative"));
  CHECK_THROWS_AS(tg::empty({-1}), tg::ValueError);
  CHECK_THROWS_AS(tg::ones({-3}), tg::ValueError);
  CHECK_THROWS_AS(tg::full({-1}, 2), tg::ValueError);
  CHECK_THROWS_AS(tg::rand({-2}), tg::ValueError);
  CHECK_THROWS_AS(tg::randn({1, -2}), tg::ValueError);
}

TEST_CASE("ops_factory: pinned memory without a CUDA device is a clear error naming the factory") {
  if (tg::cuda::is_available()) {
    MESSAGE("skipped: a CUDA device can pin memory here; tests/cuda/test_pinned_memory.cpp covers it");
    return;
  }
  // tg::Error, not NotImplementedError: pinning is implemented, the machine cannot do it (LibTorch).
  const std::string message = thrown<tg::Error>([] { tg::zeros({2}, TensorOptions().pinned_memory(true)); });
  CHECK_MESSAGE(message.rfind("CUDA is not available: [zeros] pin_memory=true", 0) == 0, message);
  bool not_implemented = false;
  try {
    tg::zeros({2}, TensorOptions().pinned_memory(true));
  } catch (const tg::NotImplementedError&) {
    not_implemented = true;
  } catch (const tg::Error&) {
  }
  CHECK_FALSE(not_implemented);
  CHECK(contains(thrown<tg::Error>([] { tg::ones_like(tg::zeros({2}), TensorOptions().pinned_memory(true)); }),
                 "[ones_like] pin_memory=true"));
  CHECK(contains(thrown<tg::Error>([] { (void)tg::zeros({2}).pin_memory(); }), "[pin_memory] pin_memory=true"));
  CHECK_FALSE(tg::zeros({2}).is_pinned());
}

TEST_CASE("ops_factory: a CUDA device without a CUDA build is a clear NotImplementedError") {
  if (has_cuda_backend()) return;  // covered by the cuda suite
  const TensorOptions cuda = TensorOptions().device(tg::kCUDA);
  for (auto make : {+[](const TensorOptions& o) { return tg::empty({2}, o); },
                    +[](const TensorOptions& o) { return tg::zeros({2}, o); },
                    +[](const TensorOptions& o) { return tg::full({2}, 1.0, o); },
                    +[](const TensorOptions& o) { return tg::arange(3, o); },
                    +[](const TensorOptions& o) { return tg::rand({2}, o); },
                    +[](const TensorOptions& o) { return tg::zeros_like(tg::zeros({2}), o); }}) {
    const std::string message = thrown<tg::NotImplementedError>([&] { make(cuda); });
    CHECK(contains(message, "CUDA"));
    CHECK_FALSE(contains(message, "<no exception>"));
  }
  CHECK_THROWS_AS(tg::zeros({2}).to(tg::Device("cuda:0")), tg::NotImplementedError);
}
