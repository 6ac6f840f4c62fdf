// CPU kernels that draw from the default Generator: uniform_ and normal_.
#include <cmath>
#include <numbers>

#include "NativeFunctions.h"
#include "core/generator.h"
#include "cpu/copy.h"
#include "cpu/loops.h"
#include "dtype_dispatch.h"

namespace tg {

namespace {

// Fills `self` (a floating tensor) with draw(engine, values, n), which writes n doubles.
// The generator stays locked for the whole fill, so a seed determines the whole tensor.
template <typename Draw>
void fill_random(const Tensor& self, const char* op, const Draw& draw) {
  TG_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
    Tensor target = self.is_contiguous() ? self : make_empty_tensor(self.sizes(), self.scalar_type(), self.device());
    scalar_t* data = target.data_ptr<scalar_t>();
    const int64_t n = target.numel();
    double values[cpu::kRowChunk];
    Generator& generator = default_generator();
    {
      auto guard = generator.lock();
      Generator::Engine engine = generator.engine();
      for (int64_t begin = 0; begin < n; begin += cpu::kRowChunk) {
        const int64_t m = std::min(cpu::kRowChunk, n - begin);
        draw(engine, values, m);
        for (int64_t j = 0; j < m; ++j) data[begin + j] = cpu::convert<scalar_t>(values[j]);
      }
    }
    if (!target.is_same(self)) cpu::copy_into(self, target);
  });
}

}  // namespace

Tensor native::uniform_cpu_(const Tensor& self, double from, double to) {
  TG_CHECK_VALUE(from <= to, "[uniform_] expects to return a [from, to) range, but found from=", from, " > to=", to);
  const double range = to - from;
  fill_random(self, "uniform_", [&](Generator::Engine& engine, double* values, int64_t n) {
    for (int64_t j = 0; j < n; ++j) values[j] = from + range * engine.next_double();
  });
  return self;
}

// Box-Muller: two uniforms u1 in (0, 1], u2 in [0, 1) give two independent standard normals
// r cos(2 pi u2) and r sin(2 pi u2), with r = sqrt(-2 ln u1).
Tensor native::normal_cpu_(const Tensor& self, double mean, double std) {
  TG_CHECK_VALUE(std >= 0.0, "[normal_] expects std >= 0.0, but found std ", std);
  fill_random(self, "normal_", [&](Generator::Engine& engine, double* values, int64_t n) {
    for (int64_t j = 0; j < n; j += 2) {
      const double u1 = 1.0 - engine.next_double();
      const double u2 = engine.next_double();
      const double r = std::sqrt(-2.0 * std::log(u1));
      const double theta = 2.0 * std::numbers::pi * u2;
      values[j] = mean + std * r * std::cos(theta);
      if (j + 1 < n) values[j + 1] = mean + std * r * std::sin(theta);
    }
  });
  return self;
}

}  // namespace tg
