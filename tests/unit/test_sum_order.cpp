// The order in which a float sum adds its elements (kernels/cpu/reduction_kernels.cpp,
// cascade summation): each capability level runs its own leaf (16-lane AVX-512, 8-lane
// AVX2, 4-lane baseline), and all of them must give the bits of the order written out here
// in plain scalar code. The kernels suite runs this file at every level the CPU has
// (tests/unit/meson.build), so a leaf that reorders one addition fails here at its level.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include <tensorgen/tensorgen.h>

namespace {

// The documented order: blocks of 64 elements fold into 16 float lanes (4 adds each, from
// +0), each block's lanes into 16 double lanes; the tail adds to a double total; the 16
// double lanes fold pairwise (8, 4, 2, 1); leaves of up to 4096 elements combine pairwise,
// split at half the length rounded up to a block.
double leaf_in_order(const float* x, int64_t n) {
  double wide[16] = {};
  int64_t j = 0;
  for (; j + 64 <= n; j += 64) {
    float lanes[16] = {};
    for (int b = 0; b < 64; b += 16) {
      for (int k = 0; k < 16; ++k) lanes[k] += x[j + b + k];
    }
    for (int k = 0; k < 16; ++k) wide[k] += static_cast<double>(lanes[k]);
  }
  double total = 0;
  for (; j < n; ++j) total += static_cast<double>(x[j]);
  for (int width = 8; width > 0; width /= 2) {
    for (int k = 0; k < width; ++k) wide[k] += wide[k + width];
  }
  return total + wide[0];
}

double sum_in_order(const float* x, int64_t n) {
  if (n <= 4096) return leaf_in_order(x, n);
  const int64_t half = (n / 2 + 63) / 64 * 64;
  return sum_in_order(x, half) + sum_in_order(x + half, n - half);
}

}  // namespace

TEST_CASE("sum order: float sums add in the documented order at every vector width") {
  std::mt19937 generator(20261128);
  std::normal_distribution<float> normal(0.0F, 1000.0F);
  // Lengths around the block (64), the leaf (4096) and a pairwise split; offsets misalign the
  // vector loads.
  for (int64_t n : {1, 15, 63, 64, 65, 127, 1000, 4095, 4096, 4097, 8193, 69000}) {
    for (int64_t offset : {0, 1, 7}) {
      CAPTURE(n);
      CAPTURE(offset);
      // The second half cancels the first (reversed, so blocks group them differently): the
      // float result is then the sum of the rounding errors, whose bits depend on the order.
      std::vector<float> values(static_cast<size_t>(n + offset));
      float* x = values.data() + offset;
      for (int64_t i = 0; i < n / 2; ++i) x[i] = normal(generator);
      for (int64_t i = 0; i < n / 2; ++i) x[n - 1 - i] = -x[i];
      if (n % 2 == 1) x[n / 2] = normal(generator) * 1e-6F;
      const tg::Tensor t = tg::from_blob(x, {n}, tg::kFloat);
      CHECK(t.sum().item<float>() == static_cast<float>(sum_in_order(x, n)));
    }
  }
}
