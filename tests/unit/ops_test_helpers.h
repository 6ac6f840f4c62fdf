// Helpers the operator tests share: tensors from values, values read back element by element
// (through each tensor's own strides, independently of the copy kernel), and exception text.
#pragma once

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <exception>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <tensorgen/tensorgen.h>

namespace doctest {
template <typename T>
struct StringMaker<std::vector<T>> {
  static String convert(const std::vector<T>& values) {
    std::ostringstream out;
    out << "{";
    for (size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
    out << "}";
    return String(out.str().c_str());
  }
};
}  // namespace doctest

#include "test_helpers.h"

namespace ops_test {

using Ints = std::vector<int64_t>;
using Values = std::vector<double>;

inline constexpr std::array<tg::ScalarType, 10> kAllDtypes = {tg::kDouble, tg::kFloat, tg::kHalf, tg::kBFloat16,
                                                              tg::kLong,   tg::kInt,   tg::kShort, tg::kChar,
                                                              tg::kByte,   tg::kBool};

// Every element in row-major order, as double, read through the tensor's strides.
inline Values values(const tg::Tensor& t) {
  Values out;
  Ints index(static_cast<size_t>(t.dim()), 0);
  const char* base = static_cast<const char*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t offset = 0;
    for (int64_t d = 0; d < t.dim(); ++d) offset += index[static_cast<size_t>(d)] * t.strides()[d];
    out.push_back(tg::load_scalar(base + offset * t.element_size(), t.scalar_type()).toDouble());
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      if (++index[static_cast<size_t>(d)] < t.sizes()[d]) break;
      index[static_cast<size_t>(d)] = 0;
    }
  }
  return out;
}

inline Ints shape(const tg::Tensor& t) { return t.sizes().vec(); }

// Short names the operator tests read with: every element as double through the strides
// (values), and a size list as a vector.
inline Values elements(const tg::Tensor& t) { return values(t); }
inline Ints vec(tg::IntArrayRef list) { return list.vec(); }

// A tensor of `dtype` holding `v` (converted) with the given shape.
inline tg::Tensor make(const Values& v, const Ints& sizes, tg::ScalarType dtype = tg::kFloat) {
  return tg::tensor(v, tg::TensorOptions().dtype(dtype)).reshape(sizes);
}

// A tensor equal to the 2-d `t` but laid out column-major (not contiguous).
inline tg::Tensor column_major(const tg::Tensor& t) { return t.transpose(0, 1).contiguous().transpose(0, 1); }

using test_helpers::thrown;

using test_helpers::contains;

}  // namespace ops_test
