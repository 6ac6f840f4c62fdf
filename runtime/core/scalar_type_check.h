// The check that a ScalarType value names an element type: a ScalarType cast from an
// arbitrary integer (ScalarType(42)) reaches the API as easily as a real one.
// Invariant: every TensorImpl's dtype passes is_valid_scalar_type.
#pragma once

#include <string_view>

#include "core/scalar_type.h"

namespace tg {

constexpr bool is_valid_scalar_type(ScalarType t) {
  return static_cast<int>(t) >= 0 && static_cast<int>(t) < kNumScalarTypes;
}

// Raises tg::TypeError "[op] invalid dtype ..." unless is_valid_scalar_type(t).
void check_scalar_type(std::string_view op, ScalarType t);

}  // namespace tg
