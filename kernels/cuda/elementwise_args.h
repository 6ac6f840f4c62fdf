// ElementwiseArgs: a strided elementwise operation as plain data, which host code builds from
// tensors (make_elementwise_args in elementwise_host.h) and CUDA kernels read. Operand 0 is
// the output, operands 1.. the inputs. Dims are stored innermost first, already broadcast and
// merged: element (i_0, ..., i_{ndim-1}) of operand k lives at
//   data[k] + sum_d i_d * strides[k][d]   (bytes; 0 on broadcast dims)
// and its linear index is i_0 + sizes[0] * (i_1 + sizes[1] * (...)).
// A CPU scalar input (a wrapped number) travels by value in `scalars`, with data[k] == nullptr.
#pragma once

#include <cstdint>

#include "core/scalar_type.h"

namespace tg::cuda {

inline constexpr int kMaxElementwiseDims = 16;
inline constexpr int kMaxElementwiseOperands = 4;  // an output and up to three inputs

// A value as the CPU holds it: a float in `f`, an integral or bool value in `i`.
struct ScalarValue {
  double f = 0.0;
  int64_t i = 0;
  bool is_floating = false;

  static ScalarValue floating(double value) { return ScalarValue{value, 0, true}; }
  static ScalarValue integral(int64_t value) { return ScalarValue{0.0, value, false}; }
};

struct ElementwiseArgs {
  int ndim = 0;
  int noperands = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxElementwiseDims] = {};
  char* data[kMaxElementwiseOperands] = {};
  int64_t strides[kMaxElementwiseOperands][kMaxElementwiseDims] = {};
  ScalarType dtypes[kMaxElementwiseOperands] = {};
  ScalarValue scalars[kMaxElementwiseOperands] = {};
  // Every operand with data is contiguous (one dim, stride == its element size).
  bool contiguous = false;
};

}  // namespace tg::cuda
