// Helpers shared by the tg::func test files (transforms, nestings, functional_call).
#pragma once

#include <functional>
#include <string>

#include <doctest/doctest.h>
#include <tensorgen/tensorgen.h>

namespace transforms_test {

inline tg::TensorOptions f64() { return tg::TensorOptions().dtype(tg::kDouble); }

// The largest absolute difference of two tensors of one shape.
inline double max_diff(const tg::Tensor& a, const tg::Tensor& b) {
  REQUIRE(a.sizes() == b.sizes());
  return (a - b).abs().max().item<double>();
}

// What fn's tg::Error says, or "" when it throws none.
inline std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const tg::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace transforms_test
